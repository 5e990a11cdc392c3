import { resolve } from "node:path";
import { type EventToAppend, readWholeStream, type SessionStore } from "@toolledger/core";
import { CliError } from "../program/cliError.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import type { LogEntry } from "../session/logEntry.js";
import { newEventId, newSessionId } from "../session/newIds.js";
import { openStore } from "../session/openStore.js";
import { parseJsonl, readJsonl } from "../session/readJsonl.js";
import { importSpec } from "./importSpec.js";

interface StreamImport {
  streamId: string;
  entries: LogEntry[];
  /** Events of the file already in the target stream (an earlier import of the same log). */
  present: number;
}

export async function importCommand(args: readonly string[], deps: Deps): Promise<number> {
  // `toolledger import goose …`: goose's own sessions (a file named goose: `./goose`).
  if (args[0] === "goose")
    return (await import("./importGoose.js")).importGooseCommand(args.slice(1), deps);
  const cmd = startCommand(importSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const source = parsed.positionals[0]!;
  // `-` reads standard input, so `toolledger export s | toolledger import - --db other.db` works.
  const file = source === "-" ? "<stdin>" : resolve(deps.cwd, source);
  const log = source === "-" ? parseJsonl(file, await readAll(deps.stdio.input)) : readJsonl(file);
  if (log.entries.length === 0) {
    throw new CliError("badInput", `${file} has no events`, {
      hint: "export a session with `toolledger export <session>`",
    });
  }
  const renamed = stringOption(parsed, "session");
  if (renamed !== undefined && log.streams.length > 1) {
    throw new CliError(
      "usage",
      `${file} holds a conversation with the registry stream it observed (${log.streams.join(", ")}); it is imported under its own stream ids`,
      { hint: "leave out --session, or import into another database with --db <file>" },
    );
  }
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = await openStore(location, "write");
  let imports: StreamImport[];
  let session: string;
  try {
    if (log.streams.length > 1) {
      session = log.session ?? log.streams[0]!;
      imports = await planStreams(store, log.entries, file);
      await appendInGlobalOrder(store, imports, file, location.path);
    } else {
      session = renamed ?? log.session ?? newSessionId(deps.now());
      // Event ids are unique in the whole store: keep the file's only when the session keeps its id.
      const keepIds = session === log.session;
      const plan = keepIds
        ? await planStream(store, session, log.entries, file)
        : { streamId: session, entries: log.entries, present: 0 };
      imports = [plan];
      const events = plan.entries.slice(plan.present).map((e) => toAppend(e, file, keepIds));
      if (events.length > 0) {
        const result = await store.append(
          session,
          events,
          plan.present === 0 ? "no_stream" : plan.present,
        );
        if (!result.ok) throw appendError(result.error, file, plan.entries, session, location.path);
      }
    }
  } finally {
    await store.close();
  }
  const added = imports.reduce((n, s) => n + s.entries.length - s.present, 0);
  const present = imports.reduce((n, s) => n + s.present, 0);
  if (added === 0) {
    throw new CliError(
      "conflict",
      `nothing imported: all ${present} events of ${file} are already in ${location.path} (session ${session})`,
      { hint: "to keep a second copy, import under another id with --session <id>" },
    );
  }
  if (booleanOption(parsed, "json")) {
    o.json({
      session,
      events: added,
      alreadyPresent: present,
      streams: imports.map((s) => ({
        stream: s.streamId,
        events: s.entries.length - s.present,
        alreadyPresent: s.present,
      })),
      db: location.path,
    });
  } else {
    o.data(session);
    o.note(
      `imported ${added} events from ${file} as session ${session} into ${location.path}${present > 0 ? ` (${present} were already there)` : ""}`,
    );
  }
  return EXIT.ok;
}

/** One stream of the file against what the target store already holds of it. */
async function planStream(
  store: SessionStore,
  streamId: string,
  entries: LogEntry[],
  file: string,
): Promise<StreamImport> {
  const existing = await readWholeStream(store, streamId);
  let present = 0;
  while (
    present < existing.length &&
    present < entries.length &&
    existing[present]!.eventId === entries[present]!.eventId
  )
    present++;
  if (present < existing.length) {
    throw new CliError(
      "conflict",
      `stream ${JSON.stringify(streamId)} already exists in the database with other events (${existing.length} events; ${file} agrees on the first ${present})`,
      {
        hint: "import under another id with --session <id>, or into another database with --db <file>",
      },
    );
  }
  return { streamId, entries, present };
}

async function planStreams(
  store: SessionStore,
  entries: LogEntry[],
  file: string,
): Promise<StreamImport[]> {
  const byStream = new Map<string, LogEntry[]>();
  for (const e of entries) {
    const list = byStream.get(e.streamId!) ?? [];
    list.push(e);
    byStream.set(e.streamId!, list);
  }
  const plans: StreamImport[] = [];
  for (const [streamId, list] of byStream) {
    list.sort((a, b) => (a.streamPosition ?? a.position) - (b.streamPosition ?? b.position));
    plans.push(await planStream(store, streamId, list, file));
  }
  return plans;
}

/** Appends what is missing stream by stream, in the file's global order, so the merged fold stays the same. */
async function appendInGlobalOrder(
  store: SessionStore,
  plans: StreamImport[],
  file: string,
  db: string,
): Promise<void> {
  const missing = plans.flatMap((p) =>
    p.entries.slice(p.present).map((entry, i) => ({ plan: p, entry, index: p.present + i })),
  );
  missing.sort(
    (a, b) =>
      (a.entry.globalPosition ?? a.entry.line ?? 0) - (b.entry.globalPosition ?? b.entry.line ?? 0),
  );
  // Runs of one stream go in one append (one transaction).
  for (let i = 0; i < missing.length; ) {
    const plan = missing[i]!.plan;
    let j = i;
    while (j < missing.length && missing[j]!.plan === plan) j++;
    const run = missing.slice(i, j);
    const expected = run[0]!.index;
    const result = await store.append(
      plan.streamId,
      run.map((m) => toAppend(m.entry, file, true)),
      expected === 0 ? "no_stream" : expected,
    );
    if (!result.ok)
      throw appendError(
        result.error,
        file,
        run.map((m) => m.entry),
        plan.streamId,
        db,
      );
    i = j;
  }
}

function toAppend(e: LogEntry, file: string, keepId: boolean): EventToAppend {
  return {
    eventId: keepId && e.eventId !== undefined ? e.eventId : newEventId(),
    event: e.event,
    metadata: {
      ...(e.metadata ?? {}),
      importedFrom: { file, line: e.line ?? null, eventId: e.eventId ?? null },
    },
  };
}

function appendError(
  e: { code: string; message?: string; actual?: number; index?: number; path?: string },
  file: string,
  entries: readonly LogEntry[],
  session: string,
  db: string,
): CliError {
  if (e.code === "VERSION_CONFLICT") {
    return new CliError(
      "conflict",
      `session ${JSON.stringify(session)} already exists in ${db} (${e.actual} events)`,
      {
        hint: "import under another id with --session <id>, or into another database with --db <file>",
      },
    );
  }
  if (e.code === "DUPLICATE_EVENT") {
    return new CliError("conflict", `${file}: ${e.message}`, {
      hint: "import under a new id with --session <id>",
    });
  }
  const line = e.index === undefined ? undefined : entries[e.index]?.line;
  return new CliError("badInput", `${file}:${line ?? "?"}: field ${e.path}: ${e.message}`);
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of input)
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  return text;
}
