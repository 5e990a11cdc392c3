import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { gooseDatabasePath } from "../goose/gooseDatabasePath.js";
import { enableMatcher } from "../goose/gooseDeferral.js";
import type { GooseSession } from "../goose/gooseSession.js";
import { parentOf } from "../goose/gooseSession.js";
import {
  GooseImportError,
  importGooseSession,
  type SessionImportResult,
} from "../goose/importGooseSession.js";
import {
  GooseFormatError,
  type GooseSessionHead,
  readGooseDatabase,
} from "../goose/readGooseDatabase.js";
import { GooseFileError, readGooseFile } from "../goose/readGooseFile.js";
import { RequestLogError, readRequestLogs } from "../goose/readRequestLogs.js";
import { formatTable } from "../output/formatTable.js";
import { shortTime } from "../output/output.js";
import { CliError, usageError } from "../program/cliError.js";
import { booleanOption, type ParsedArgs, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { openStore } from "../session/openStore.js";
import { importGooseSpec } from "./importGooseSpec.js";

/** `toolledger import goose`: goose's sessions into the ledger (issue 26). */
export async function importGooseCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(importGooseSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const files = parsed.positionals.map((f) => resolve(deps.cwd, f));
  const loggedTools = wrap(() =>
    readRequestLogs(list(parsed, "request-log").map((f) => resolve(deps.cwd, f))),
  );
  const sessions = files.length > 0 ? readFiles(files, parsed) : readDatabase(parsed, deps);
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = await openStore(location, "write");
  const results: SessionImportResult[] = [];
  try {
    for (const session of sessions) {
      results.push(
        await wrapAsync(() =>
          importGooseSession(store, session, {
            prefix: stringOption(parsed, "prefix") ?? "goose-",
            matcher: enableMatcher(list(parsed, "enable-tool")),
            loggedTools,
            hostname: hostname(),
            toolledgerVersion: deps.version,
          }),
        ),
      );
    }
  } finally {
    await store.close();
  }
  const added = results.reduce((n, r) => n + r.added, 0);
  if (booleanOption(parsed, "json")) {
    o.json({ db: location.path, added, sessions: results });
    return EXIT.ok;
  }
  o.data(
    formatTable(
      results.map((r) => [
        r.sourceSession,
        r.conversation,
        String(r.added),
        String(r.alreadyPresent),
        String(r.calls),
        `${r.byKind.exact}/${r.byKind.inferred}/${r.byKind.synthetic}`,
        Object.values(r.skipped).reduce((n, k) => n + k, 0) === 0
          ? "-"
          : String(Object.values(r.skipped).reduce((n, k) => n + k, 0)),
      ]),
      {
        header: [
          "GOOSE SESSION",
          "CONVERSATION",
          "ADDED",
          "PRESENT",
          "CALLS",
          "EXACT/INFERRED/SYNTHETIC",
          "SKIPPED",
        ],
        right: [2, 3, 4, 6],
        styleHeader: o.out.bold,
      },
    ),
  );
  for (const r of results) {
    for (const [type, n] of Object.entries(r.skipped))
      o.note(`${r.sourceSession}: skipped ${n} content block(s) of type ${type}`);
    for (const note of r.notes) o.note(`${r.sourceSession}: ${note}`);
  }
  o.note(
    added === 0
      ? `nothing new: every event of ${results.length} goose session(s) is already in ${location.path}`
      : `imported ${added} events of ${results.length} goose session(s) into ${location.path}; next: toolledger replay ${results[0]!.conversation}, toolledger view ${results[0]!.conversation} --open`,
  );
  return EXIT.ok;
}

function readFiles(files: readonly string[], parsed: ParsedArgs): GooseSession[] {
  for (const flag of ["session", "all", "since", "goose-db"]) {
    if (parsed.values[flag] !== undefined)
      throw usageError(
        `import goose: --${flag} selects from goose's database; it does not go with files`,
        "import goose",
      );
  }
  return files.map((f) => wrap(() => readGooseFile(f)));
}

function readDatabase(parsed: ParsedArgs, deps: Deps): GooseSession[] {
  const explicit = stringOption(parsed, "goose-db");
  const found =
    explicit === undefined
      ? gooseDatabasePath(deps.env, deps.home)
      : { path: resolve(deps.cwd, explicit), from: "--goose-db" };
  if (!existsSync(found.path)) {
    throw new CliError(
      "notFound",
      `goose's session database is not at ${found.path} (from ${found.from})`,
      {
        hint: "point at it with --goose-db <file> (goose keeps it in its data directory, under sessions/), or import export files: toolledger import goose <file.json>",
      },
    );
  }
  const ids = list(parsed, "session");
  const all = booleanOption(parsed, "all");
  const since = parseSince(stringOption(parsed, "since"), deps.now());
  if (ids.length === 0 && !all && since === null) {
    const { heads } = wrap(() => readGooseDatabase(found.path, () => []));
    const recent = [...heads]
      .sort((a, b) => ((b.updatedAt ?? "") < (a.updatedAt ?? "") ? -1 : 1))
      .slice(0, 5);
    throw new CliError(
      "usage",
      `import goose: say which sessions of ${found.path} to import (${heads.length} there)`,
      {
        hint: `--session <id>, --all or --since <when>; the latest: ${recent.map((h) => `${h.id} (${shortTime(h.updatedAt ?? undefined)}${h.name ? ` "${h.name}"` : ""})`).join(", ") || "none"}`,
      },
    );
  }
  const { sessions, heads } = wrap(() =>
    readGooseDatabase(found.path, (heads) => pick(heads, { ids, all, since })),
  );
  for (const id of ids) {
    if (!heads.some((h) => h.id === id))
      throw new CliError(
        "notFound",
        `goose session ${JSON.stringify(id)} is not in ${found.path}`,
        {
          hint: `its sessions: ${heads
            .slice(-5)
            .map((h) => h.id)
            .join(", ")}${heads.length > 5 ? ", …" : ""}`,
        },
      );
  }
  // Parents before their sub-agents, so a parent's conversation exists when a child names it.
  return sessions.sort((a, b) => depth(a, sessions) - depth(b, sessions));
}

/** The sessions asked for, with every sub-agent below them (parent_session_id, or the name before it). */
export function pick(
  heads: readonly GooseSessionHead[],
  want: { ids: readonly string[]; all: boolean; since: Date | null },
): string[] {
  const chosen = new Set<string>();
  for (const h of heads) {
    if (want.all || want.ids.includes(h.id)) chosen.add(h.id);
    else if (want.since && h.updatedAt && Date.parse(h.updatedAt) >= want.since.getTime())
      chosen.add(h.id);
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const h of heads) {
      const p = parentOf(h).id;
      if (p !== null && chosen.has(p) && !chosen.has(h.id)) {
        chosen.add(h.id);
        grew = true;
      }
    }
  }
  return [...chosen];
}

function depth(s: GooseSession, all: readonly GooseSession[]): number {
  let d = 0;
  for (let p = parentOf(s).id; p !== null && d < 50; d++) {
    const parent = all.find((x) => x.id === p);
    p = parent ? parentOf(parent).id : null;
  }
  return d;
}

export function parseSince(raw: string | undefined, now: Date): Date | null {
  if (raw === undefined) return null;
  const rel = /^(\d+)([mhdw])$/.exec(raw.trim());
  if (rel) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[
      rel[2] as "m" | "h" | "d" | "w"
    ];
    return new Date(now.getTime() - Number(rel[1]) * unit);
  }
  const t = Date.parse(raw);
  if (Number.isNaN(t))
    throw usageError(
      `import goose: --since ${JSON.stringify(raw)} is neither an ISO date/time (2026-11-30, 2026-11-30T12:00Z) nor a duration (30m, 12h, 7d, 2w)`,
      "import goose",
    );
  return new Date(t);
}

function list(parsed: ParsedArgs, name: string): string[] {
  const v = parsed.values[name];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

function wrap<T>(f: () => T): T {
  try {
    return f();
  } catch (error) {
    throw asCliError(error);
  }
}

async function wrapAsync<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (error) {
    throw asCliError(error);
  }
}

function asCliError(error: unknown): unknown {
  if (
    error instanceof GooseFormatError ||
    error instanceof GooseFileError ||
    error instanceof RequestLogError
  )
    return new CliError("badInput", error.message, {
      cause: error,
      hint: "point at goose's sessions.db, an export of `goose session export --format json`, or a legacy <id>.jsonl",
    });
  if (error instanceof GooseImportError)
    return new CliError("conflict", error.message, { cause: error });
  return error;
}
