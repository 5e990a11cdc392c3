import { CliError } from "./cliError.js";
import type { Deps } from "./deps.js";
import type { LoadedLog } from "./loadLog.js";
import type { Output } from "./output.js";

export async function liveLog(
  _config: string,
  _flags: { deferral: string | undefined; alwaysLoad: string | undefined },
  _deps: Deps,
  _o: Output,
  _command: string,
): Promise<LoadedLog> {
  throw new CliError("internal", "not built yet");
}
