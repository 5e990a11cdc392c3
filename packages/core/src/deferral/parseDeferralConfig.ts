import type { DeferralMode } from "../events/events.js";

export interface DeferralConfig {
  mode: DeferralMode;
  /** D2: exact model-visible public names that stay eager. */
  alwaysLoad: string[];
  /** S1 `auto`: the token budget of the deferred-names section (default DEFAULT_DEFERRAL_BUDGET). */
  budget?: number;
}

export type DeferralConfigResult =
  | { ok: true; config: DeferralConfig }
  | {
      ok: false;
      error: { code: "INVALID_DEFERRAL_MODE"; variable: string; value: string; message: string };
    };

export const DEFERRAL_ENV = "GOOSE_TOOL_DEFERRAL";
export const ALWAYS_LOAD_ENV = "GOOSE_TOOL_DEFERRAL_ALWAYS_LOAD";
/** D1: the modes `GOOSE_TOOL_DEFERRAL` accepts (goose's own). */
export const DEFERRAL_MODES: readonly DeferralMode[] = ["off", "lookup"];
/** D1/S1: every mode toolledger serves: goose's, plus its own `search` and `auto`. */
export const TOOLLEDGER_DEFERRAL_MODES: readonly DeferralMode[] = [
  "off",
  "lookup",
  "search",
  "auto",
];

/**
 * D1/D2: reads `GOOSE_TOOL_DEFERRAL` (unset or empty: off; `lookup`; anything else is an
 * error naming the allowed values) and the comma-separated always-load list.
 * `env` is any string map (e.g. `process.env`), so the core stays free of Node.
 */
export function parseDeferralConfig(
  env: Readonly<Record<string, string | undefined>>,
): DeferralConfigResult {
  const value = env[DEFERRAL_ENV] ?? "";
  const mode = parseDeferralMode(value);
  if (mode === undefined) {
    return {
      ok: false,
      error: {
        code: "INVALID_DEFERRAL_MODE",
        variable: DEFERRAL_ENV,
        value,
        message: `${DEFERRAL_ENV}=${JSON.stringify(value)} is not a deferral mode; use "lookup" to defer tools, or leave it unset (or "off") to load every tool`,
      },
    };
  }
  return { ok: true, config: { mode, alwaysLoad: parseAlwaysLoad(env[ALWAYS_LOAD_ENV] ?? "") } };
}

/** `""` and `"off"` mean off; `"lookup"` is the only strategy (D1). */
export function parseDeferralMode(value: string): DeferralMode | undefined {
  if (value === "" || value === "off") return "off";
  if (value === "lookup") return "lookup";
  return undefined;
}

/** S1: a mode of toolledger's own options (`--deferral`, the config files' `toolledger:` settings). */
export function parseToolledgerDeferralMode(value: string): DeferralMode | undefined {
  if (value === "search" || value === "auto") return value;
  return parseDeferralMode(value);
}

/** D2: split on commas, trim, drop empty entries; matching stays exact and case-sensitive. */
export function parseAlwaysLoad(value: string): string[] {
  const out: string[] = [];
  for (const part of value.split(",")) {
    const name = part.trim();
    if (name !== "" && !out.includes(name)) out.push(name);
  }
  return out;
}
