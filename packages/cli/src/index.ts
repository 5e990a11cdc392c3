export { CliError } from "./cliError.js";
export type { Deps, TextSink } from "./deps.js";
export { EXIT, EXIT_CODE_TABLE, type ExitCode } from "./exitCodes.js";
export { type Explanation, explainTool } from "./explainTool.js";
export { loadConfig, parseConfig } from "./loadConfig.js";
export { type ReplayStep, replaySteps } from "./replaySteps.js";
export { COMMANDS, run } from "./run.js";
export type { LoadedConfig, ServerConfig } from "./serverConfig.js";
