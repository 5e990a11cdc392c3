import type { DeferralConfig } from "@toolledger/core";
import { CONFIG_ENV, loadConfig, resolveConfigPath } from "../config/loadConfig.js";
import { resolveDeferral } from "../config/resolveDeferral.js";
import type { LoadedConfig } from "../config/serverConfig.js";
import { createOutput } from "../output/output.js";
import type { Deps } from "../program/deps.js";

export interface ServerSetupFlags {
  config: string | undefined;
  deferral: string | undefined;
  alwaysLoad: string | undefined;
  /** S1: `--deferral-budget`. */
  budget?: string | undefined;
}

/**
 * The MCP servers to connect to and the deferral to serve them with, as `serve`, `tools` and
 * `explain --config` read them: the config file by the location rules, deferral by flag, then
 * environment, then the config file's `GOOSE_*` keys. Without --config or TOOLLEDGER_CONFIG
 * that is goose's own config.yaml, which it says on stderr: nobody should be surprised by
 * which servers start.
 */
export function loadServerSetup(
  flags: ServerSetupFlags,
  deps: Deps,
  command: string,
): { config: LoadedConfig; deferral: DeferralConfig } {
  const file = resolveConfigPath(flags.config, deps.env, deps.home, deps.cwd);
  if ((flags.config ?? "") === "" && (deps.env[CONFIG_ENV] ?? "") === "") {
    createOutput(deps).note(
      `toolledger: no --config given: reading goose's config ${file} (pass --config <file> or set ${CONFIG_ENV} for another)`,
    );
  }
  const config = loadConfig(file, deps);
  const deferral = resolveDeferral(
    { deferral: flags.deferral, alwaysLoad: flags.alwaysLoad, budget: flags.budget },
    deps.env,
    config.fileEnv,
    command,
    config.fileDeferral,
  );
  return { config, deferral };
}
