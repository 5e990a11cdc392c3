import type { Deps } from "./deps.js";
import { loadConfig, resolveConfigPath } from "./loadConfig.js";
import type { LoadedLog } from "./loadLog.js";
import type { LogEntry } from "./logEntry.js";
import type { Output } from "./output.js";
import { resolveDeferral } from "./resolveDeferral.js";
import { startSession } from "./startSession.js";

/** Connects to the servers of a config file in memory and returns the log of that short session. */
export async function liveLog(
  configFlag: string,
  flags: { deferral: string | undefined; alwaysLoad: string | undefined },
  deps: Deps,
  o: Output,
  command: string,
): Promise<LoadedLog> {
  const config = loadConfig(resolveConfigPath(configFlag, deps.env, deps.home, deps.cwd));
  const deferral = resolveDeferral(flags, deps.env, config.fileEnv, command);
  const { session } = await startSession(config, deferral, o, { now: deps.now });
  try {
    const stored = await session.store.readStream(session.streamId);
    const entries: LogEntry[] = stored.map((e) => ({
      position: e.streamPosition,
      event: e.event,
      eventId: e.eventId,
      recordedAt: e.recordedAt,
    }));
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
