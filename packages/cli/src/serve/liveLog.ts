import type { Output } from "../output/output.js";
import type { Deps } from "../program/deps.js";
import type { LoadedLog } from "../session/loadLog.js";
import type { LogEntry } from "../session/logEntry.js";
import { readSessionEntries } from "../session/readSession.js";
import { loadServerSetup, type ServerSetupFlags } from "./loadServerSetup.js";
import { oauthRuntimeFor } from "./oauthRuntimeFor.js";
import { startSession } from "./startSession.js";

/** Connects to the servers of a config file in memory and returns the log of that short session. */
export async function liveLog(
  flags: ServerSetupFlags & { config: string },
  deps: Deps,
  o: Output,
  command: string,
): Promise<LoadedLog> {
  const { config, deferral } = loadServerSetup(flags, deps, command);
  const { session } = await startSession(config, deferral, o, {
    now: deps.now,
    env: deps.env,
    oauth: oauthRuntimeFor(deps, o, config.file, { interactive: false }),
  });
  try {
    const entries: LogEntry[] = await readSessionEntries(session.store, session.streamId);
    return {
      entries,
      label: `the live servers of ${config.file}`,
      session: undefined,
      db: undefined,
    };
  } finally {
    await session.close();
  }
}
