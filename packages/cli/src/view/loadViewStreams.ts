import { basename, resolve } from "node:path";
import { readConversationLog } from "@toolledger/core";
import { resolveDatabasePath } from "../databasePath.js";
import type { Deps } from "../deps.js";
import { isFileSource } from "../loadLog.js";
import { openStore } from "../openStore.js";
import { readJsonl } from "../readJsonl.js";
import { sessionNotFound } from "../readSession.js";
import { logStream, storedStream } from "./buildViewData.js";
import type { ViewStream } from "./viewData.js";

export interface ViewSource {
  streams: ViewStream[];
  title: string;
  /** For messages: `session <id> in <db>` or the file path. */
  label: string;
  /** Where the page goes by default: next to the database, or next to the file. */
  directory: string;
}

/**
 * A session from the database with every registry stream it observes (C1), or a JSONL
 * log (one stream, its lines in order).
 */
export async function loadViewStreams(
  source: string,
  dbFlag: string | undefined,
  deps: Deps,
): Promise<ViewSource> {
  if (isFileSource(source, deps.cwd)) {
    const path = resolve(deps.cwd, source);
    const log = readJsonl(path);
    const title = log.session ?? basename(path).replace(/\.jsonl?$/, "");
    return {
      streams: [logStream(title, log.entries)],
      title,
      label: path,
      directory: resolve(path, ".."),
    };
  }
  const location = resolveDatabasePath(dbFlag, deps.env, deps.home, deps.cwd);
  const store = openStore(location, "read");
  try {
    const log = await readConversationLog(store, source);
    if (log.events.length === 0) throw await sessionNotFound(store, source);
    return {
      streams: [
        storedStream(source, log.events),
        ...[...log.registries].map(([id, events]) => storedStream(id, events)),
      ],
      title: source,
      label: `session ${source} in ${location.path}`,
      directory: resolve(location.path, ".."),
    };
  } finally {
    await store.close();
  }
}
