import type { DeferralConfig } from "@toolledger/core";
import type { Deps } from "./deps.js";
import { loadConfig, resolveConfigPath } from "./loadConfig.js";
import { resolveDeferral } from "./resolveDeferral.js";
import type { LoadedConfig } from "./serverConfig.js";

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
 * environment, then the config file's `GOOSE_*` keys.
 */
export function loadServerSetup(
  flags: ServerSetupFlags,
  deps: Deps,
  command: string,
): { config: LoadedConfig; deferral: DeferralConfig } {
  const config = loadConfig(resolveConfigPath(flags.config, deps.env, deps.home, deps.cwd), deps);
  const deferral = resolveDeferral(
    { deferral: flags.deferral, alwaysLoad: flags.alwaysLoad, budget: flags.budget },
    deps.env,
    config.fileEnv,
    command,
    config.fileDeferral,
  );
  return { config, deferral };
}
