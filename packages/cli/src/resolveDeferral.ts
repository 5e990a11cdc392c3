import {
  ALWAYS_LOAD_ENV,
  DEFERRAL_ENV,
  type DeferralConfig,
  parseAlwaysLoad,
  parseDeferralConfig,
  parseDeferralMode,
} from "@toolledger/core";
import { CliError, usageError } from "./cliError.js";

/**
 * D1/D2: `--deferral` / `--always-load` win over the environment, which wins over the
 * `GOOSE_*` keys of a goose config file.
 */
export function resolveDeferral(
  flags: { deferral?: string | undefined; alwaysLoad?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
  fileEnv: Readonly<Record<string, string>> = {},
  command = "",
): DeferralConfig {
  const pick = (name: string) => (env[name] !== undefined ? env[name] : fileEnv[name]);
  const base = parseDeferralConfig({
    [DEFERRAL_ENV]: pick(DEFERRAL_ENV),
    [ALWAYS_LOAD_ENV]: pick(ALWAYS_LOAD_ENV),
  });
  let mode: DeferralConfig["mode"];
  if (flags.deferral !== undefined) {
    const m = parseDeferralMode(flags.deferral);
    if (m === undefined) {
      throw usageError(
        `${command}: --deferral ${JSON.stringify(flags.deferral)} is not a deferral mode; use "lookup" or "off"`,
        command,
      );
    }
    mode = m;
  } else if (!base.ok) {
    const from = env[DEFERRAL_ENV] !== undefined ? "the environment" : "the config file";
    throw new CliError("badInput", `${base.error.message} (set in ${from})`);
  } else {
    mode = base.config.mode;
  }
  const alwaysLoad =
    flags.alwaysLoad !== undefined
      ? parseAlwaysLoad(flags.alwaysLoad)
      : parseAlwaysLoad(pick(ALWAYS_LOAD_ENV) ?? "");
  return { mode, alwaysLoad };
}
