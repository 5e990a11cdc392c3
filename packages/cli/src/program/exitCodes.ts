/**
 * The one table of exit codes. Every failure the CLI reports carries a code from here;
 * `main.ts` passes it to `process.exit`.
 */
export const EXIT = {
  /** The command did what was asked. */
  ok: 0,
  /** A bug or an unexpected failure (the message says what to report). */
  internal: 1,
  /** Unknown command or flag, missing or malformed argument. */
  usage: 2,
  /** A file or log that cannot be read as asked: invalid config, damaged JSONL or database, unknown event type, newer schema version. */
  badInput: 3,
  /** A database (file, or event store on a server), session, file or tool that does not exist (nothing is created). */
  notFound: 4,
  /** The target already exists or changed underneath (session id taken, version conflict, store busy). */
  conflict: 5,
  /** An MCP server failed to start, answer or serve, a port could not be bound, or the database server is unreachable. */
  serverFailure: 6,
  /** `toolledger doctor` found something that does not work (each finding says what to do). */
  unhealthy: 7,
  /** Stopped by the user (Ctrl-C, SIGTERM), as shells expect. */
  interrupted: 130,
} as const;

export type ExitCodeName = keyof typeof EXIT;
export type ExitCode = (typeof EXIT)[ExitCodeName];

/** Rows for `--help` and the README: code, name, meaning. */
export const EXIT_CODE_TABLE: readonly { code: ExitCode; name: ExitCodeName; meaning: string }[] = [
  { code: EXIT.ok, name: "ok", meaning: "success" },
  {
    code: EXIT.internal,
    name: "internal",
    meaning: "unexpected failure (a bug: please report it)",
  },
  {
    code: EXIT.usage,
    name: "usage",
    meaning: "unknown command or flag, missing or malformed argument",
  },
  {
    code: EXIT.badInput,
    name: "badInput",
    meaning:
      "invalid config file, damaged JSONL or database, unknown event type or newer schema version",
  },
  { code: EXIT.notFound, name: "notFound", meaning: "missing database, session, file or tool" },
  {
    code: EXIT.conflict,
    name: "conflict",
    meaning: "session already exists, version conflict, store busy",
  },
  {
    code: EXIT.serverFailure,
    name: "serverFailure",
    meaning:
      "an MCP server failed to start or answer, a port could not be bound, or the PostgreSQL server is unreachable",
  },
  {
    code: EXIT.unhealthy,
    name: "unhealthy",
    meaning: "toolledger doctor found a problem (each printed with what to do)",
  },
  { code: EXIT.interrupted, name: "interrupted", meaning: "stopped by Ctrl-C or SIGTERM" },
];
