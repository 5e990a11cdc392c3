import { resolve } from "node:path";
import type { EventToAppend } from "@toolledger/core";
import { CliError } from "../cliError.js";
import { booleanOption, parseCommandArgs, renderHelp, stringOption } from "../commandSpec.js";
import { resolveDatabasePath } from "../databasePath.js";
import type { Deps } from "../deps.js";
import { EXIT } from "../exitCodes.js";
import { newEventId, newSessionId } from "../newIds.js";
import { openStore } from "../openStore.js";
import { createOutput } from "../output.js";
import { parseJsonl, readJsonl } from "../readJsonl.js";
import { importSpec } from "./importSpec.js";

export async function importCommand(args: readonly string[], deps: Deps): Promise<number> {
  const parsed = parseCommandArgs(importSpec, args);
  const o = createOutput(deps);
  if (booleanOption(parsed, "help")) {
    o.data(renderHelp(importSpec, o.out.bold));
    return EXIT.ok;
  }
  const source = parsed.positionals[0]!;
  // `-` reads standard input, so `toolledger export s | toolledger import - --db other.db` works.
  const file = source === "-" ? "<stdin>" : resolve(deps.cwd, source);
  const log = source === "-" ? parseJsonl(file, await readAll(deps.stdio.input)) : readJsonl(file);
  if (log.entries.length === 0) {
    throw new CliError("badInput", `${file} has no events`, {
      hint: "export a session with `toolledger export <session>`",
    });
  }
  const session = stringOption(parsed, "session") ?? log.session ?? newSessionId(deps.now());
  // Event ids are unique in the whole store: keep the file's only when the session keeps its id.
  const keepIds = session === log.session;
  const events: EventToAppend[] = log.entries.map((e) => ({
    eventId: keepIds && e.eventId !== undefined ? e.eventId : newEventId(),
    event: e.event,
    metadata: {
      ...(e.metadata ?? {}),
      importedFrom: { file, line: e.line ?? null, eventId: e.eventId ?? null },
    },
  }));
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = openStore(location, "write");
  try {
    const result = await store.append(session, events, "no_stream");
    if (!result.ok) {
      const e = result.error;
      if (e.code === "VERSION_CONFLICT") {
        throw new CliError(
          "conflict",
          `session ${JSON.stringify(session)} already exists in ${location.path} (${e.actual} events)`,
          {
            hint: "import under another id with --session <id>, or into another database with --db <file>",
          },
        );
      }
      if (e.code === "DUPLICATE_EVENT") {
        throw new CliError("conflict", `${file}: ${e.message}`, {
          hint: "import under a new id with --session <id>",
        });
      }
      const line = log.entries[e.index]?.line;
      throw new CliError("badInput", `${file}:${line ?? "?"}: field ${e.path}: ${e.message}`);
    }
  } finally {
    await store.close();
  }
  if (booleanOption(parsed, "json")) o.json({ session, events: events.length, db: location.path });
  else {
    o.data(session);
    o.note(
      `imported ${events.length} events from ${file} as session ${session} into ${location.path}`,
    );
  }
  return EXIT.ok;
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of input)
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  return text;
}
