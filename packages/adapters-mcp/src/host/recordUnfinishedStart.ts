import type { StreamWriter } from "../ledger/streamWriter.js";
import { type ExtensionSupervisor, seconds } from "./extensionSupervisor.js";
import { recordFetchFailure } from "./lists/recordToolsFetch.js";

/**
 * Issue 20.4: a server still starting, listing or waiting to be started again when its host
 * stops is recorded as a failed fetch that says where it was, so replay, explain and the
 * view can tell why its tools were missing. Once per server; nothing for the others.
 */
export async function recordUnfinishedStart(
  writer: StreamWriter,
  s: ExtensionSupervisor,
): Promise<void> {
  if (s.unfinishedRecorded) return;
  const since = seconds(Math.round(performance.now() - s.phaseSince));
  let what: string;
  if (s.phase === "starting")
    what = `it had not finished starting (the process and its initialize) after ${since}`;
  else if (s.phase === "listing") what = `its tools/list had no answer after ${since}`;
  else if (s.phase === "retrying")
    what = `it was waiting to be started again (after attempt ${s.attempts})`;
  else return;
  s.unfinishedRecorded = true;
  await recordFetchFailure(
    writer,
    s.key,
    `extension ${JSON.stringify(s.config.name)} was still starting when the host stopped: ${what}`,
  );
}
