import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import type { ExportLine } from "../session/logEntry.js";
import { openStore } from "../session/openStore.js";
import { readSession } from "../session/readSession.js";
import { exportSpec } from "./exportSpec.js";

export async function exportCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(exportSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const session = parsed.positionals[0]!;
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = await openStore(location, "read");
  let text = "";
  let count = 0;
  try {
    for (const e of await readSession(store, session)) {
      // A conversation exports with the registry events it observed, each under its own stream (C1).
      const stream = e.streamId ?? session;
      const position = e.streamPosition ?? e.position;
      const line: ExportLine = {
        session: stream,
        position,
        ...(e.globalPosition === undefined ? {} : { globalPosition: e.globalPosition }),
        eventId: e.eventId ?? `${stream}-${position}`,
        recordedAt: e.recordedAt ?? "",
        metadata: e.metadata ?? {},
        event: e.event,
      };
      text += `${JSON.stringify(line)}\n`;
      count++;
    }
  } finally {
    await store.close();
  }
  const file = stringOption(parsed, "output");
  if (file === undefined) {
    deps.stdout.write(text);
  } else {
    const path = resolve(deps.cwd, file);
    writeFileSync(path, text);
    o.note(`wrote ${count} events of session ${session} to ${path}`);
  }
  return EXIT.ok;
}
