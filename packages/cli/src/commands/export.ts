import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  booleanOption,
  type CommandSpec,
  DB_OPTION,
  parseCommandArgs,
  renderHelp,
  stringOption,
} from "../commandSpec.js";
import { resolveDatabasePath } from "../databasePath.js";
import type { Deps } from "../deps.js";
import { EXIT } from "../exitCodes.js";
import type { ExportLine } from "../logEntry.js";
import { openStore } from "../openStore.js";
import { createOutput } from "../output.js";
import { readSession } from "../readSession.js";

export const exportSpec: CommandSpec = {
  name: "export",
  summary:
    "Write a session as JSONL (one event per line), to attach to a bug report and replay elsewhere.",
  description:
    'Each line is {"session", "position", "eventId", "recordedAt", "metadata", "event"}. Events carry no secrets\n(env and header values never enter the log). `toolledger import` and `toolledger replay` read it back.',
  positionals: [
    { name: "session", required: true, description: "the session id (see `toolledger sessions`)" },
  ],
  options: [
    {
      name: "output",
      type: "string",
      short: "o",
      value: "<file>",
      description: "write to this file instead of stdout",
    },
    DB_OPTION,
  ],
  examples: [
    "toolledger export 20261129-2345-a1b2c3 > session.jsonl",
    "toolledger export 20261129-2345-a1b2c3 -o session.jsonl",
  ],
};

export async function exportCommand(args: readonly string[], deps: Deps): Promise<number> {
  const parsed = parseCommandArgs(exportSpec, args);
  const o = createOutput(deps);
  if (booleanOption(parsed, "help")) {
    o.data(renderHelp(exportSpec, o.out.bold));
    return EXIT.ok;
  }
  const session = parsed.positionals[0]!;
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = openStore(location, "read");
  let text = "";
  let count = 0;
  try {
    for (const e of await readSession(store, session)) {
      const line: ExportLine = {
        session,
        position: e.position,
        eventId: e.eventId ?? `${session}-${e.position}`,
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
