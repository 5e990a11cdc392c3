import {
  ALWAYS_LOAD_ENV,
  DEFERRAL_ENV,
  type DeferralConfig,
  parseAlwaysLoad,
  parseDeferralConfig,
  parseToolledgerDeferralMode,
  TOOLLEDGER_DEFERRAL_MODES,
} from "@toolledger/core";
import { CliError, usageError } from "../program/cliError.js";

/** The `toolledger:` settings of a config file that concern deferral (already checked). */
export interface FileDeferral {
  mode?: string;
  budget?: number;
}

/**
 * D1/D2/S1: `--deferral` / `--always-load` / `--deferral-budget` win over the environment,
 * which wins over the config file (its `toolledger:` settings, then goose's `GOOSE_*` keys).
 * `GOOSE_TOOL_DEFERRAL` keeps goose's meaning: only off and lookup (D1).
 */
export function resolveDeferral(
  flags: {
    deferral?: string | undefined;
    alwaysLoad?: string | undefined;
    budget?: string | undefined;
  },
  env: Readonly<Record<string, string | undefined>>,
  fileEnv: Readonly<Record<string, string>> = {},
  command = "",
  fileDeferral: FileDeferral = {},
): DeferralConfig {
  const pick = (name: string) => (env[name] !== undefined ? env[name] : fileEnv[name]);
  const fromEnv = env[DEFERRAL_ENV] !== undefined && env[DEFERRAL_ENV] !== "";
  const base = parseDeferralConfig({
    [DEFERRAL_ENV]: fromEnv || fileDeferral.mode === undefined ? pick(DEFERRAL_ENV) : undefined,
    [ALWAYS_LOAD_ENV]: pick(ALWAYS_LOAD_ENV),
  });
  let mode: DeferralConfig["mode"];
  if (flags.deferral !== undefined) {
    const m = parseToolledgerDeferralMode(flags.deferral);
    if (m === undefined) {
      throw usageError(
        `${command}: --deferral ${JSON.stringify(flags.deferral)} is not a deferral mode; use ${TOOLLEDGER_DEFERRAL_MODES.map((x) => `"${x}"`).join(", ")}`,
        command,
      );
    }
    mode = m;
  } else if (!base.ok) {
    const from = fromEnv ? "the environment" : "the config file";
    throw new CliError("badInput", `${base.error.message} (set in ${from})`);
  } else if (!fromEnv && fileDeferral.mode !== undefined) {
    // Checked when the file was read: one of the four modes.
    mode = parseToolledgerDeferralMode(fileDeferral.mode)!;
  } else {
    mode = base.config.mode;
  }
  const alwaysLoad =
    flags.alwaysLoad !== undefined
      ? parseAlwaysLoad(flags.alwaysLoad)
      : parseAlwaysLoad(pick(ALWAYS_LOAD_ENV) ?? "");
  let budget = fileDeferral.budget;
  if (flags.budget !== undefined) {
    const n = Number(flags.budget);
    if (!/^[0-9]+$/.test(flags.budget.trim()) || !Number.isSafeInteger(n) || n < 1) {
      throw usageError(
        `${command}: --deferral-budget ${JSON.stringify(flags.budget)} is not a number of tokens; give a whole number above 0, e.g. 2000`,
        command,
      );
    }
    budget = n;
  }
  return { mode, alwaysLoad, ...(budget === undefined ? {} : { budget }) };
}
