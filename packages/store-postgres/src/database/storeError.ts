import { EventStoreError, type EventStoreErrorCode, type RowSource } from "@toolledger/core";
import { scrubSecrets } from "./redactConnectionString.js";

const ADVICE: Record<EventStoreErrorCode, string> = {
  STORE_BUSY:
    "another append held the log's head lock past the lock timeout, or the server is overloaded; retry (event ids make it idempotent), or raise lockTimeoutMs",
  STORE_CLOSED: "open the store again",
  STORE_CORRUPT:
    "the store's tables do not hold what toolledger wrote; restore the schema from a backup",
  SCHEMA_TOO_NEW: "upgrade toolledger",
  NOT_A_DATABASE:
    "point toolledger at a toolledger event store, an empty schema, or another --db / schema",
  IO_ERROR: "check the connection string, the user's privileges and the server's log, then retry",
  STORE_UNAVAILABLE:
    "check that the server is running and reachable, then retry (an append that may have committed is safe to retry with the same event ids)",
  STORE_NOT_FOUND:
    "record a session there first (`toolledger serve` or `demo` with this --db), or check the database and schema",
  STORE_READ_ONLY:
    "the server refuses writes (a read-only transaction or a standby); point writers at the primary",
};

/** Where a store lives, for messages: the redacted URL and schema; and the secrets to scrub. */
export interface StoreLocation extends RowSource {
  secrets: readonly string[];
}

export function storeLocation(label: string, secrets: readonly string[]): StoreLocation {
  return { label, secrets, advice: ADVICE };
}

/**
 * Maps a driver or server error to an EventStoreError naming the store and what was being
 * done, with secrets scrubbed from every message (the cause included). Errors that are
 * already EventStoreErrors pass through.
 */
export function toStoreError(error: unknown, where: StoreLocation, doing: string): EventStoreError {
  if (error instanceof EventStoreError) return error;
  const code = codeOf(error);
  const sqlstate = (error as { code?: unknown }).code;
  const detail = scrubSecrets(messageOf(error), where.secrets);
  const suffix = typeof sqlstate === "string" ? ` (${sqlstate})` : "";
  return new EventStoreError(
    code,
    `${where.label}: ${doing} failed: ${detail}${suffix}; ${ADVICE[code]}`,
    { cause: scrubbedCause(error, where.secrets) },
  );
}

export function storeError(
  code: EventStoreErrorCode,
  where: StoreLocation,
  what: string,
): EventStoreError {
  return new EventStoreError(code, `${where.label}: ${what}; ${ADVICE[code]}`);
}

/** Node socket errors that mean the server is not there (or went away). */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNABORTED",
]);

function codeOf(error: unknown): EventStoreErrorCode {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (UNREACHABLE.has(code)) return "STORE_UNAVAILABLE";
    // SQLSTATE classes: 08 connection, 57P01–57P05 shutdown / cannot connect now.
    if (code.startsWith("08") || /^57P0[1-5]$/.test(code)) return "STORE_UNAVAILABLE";
    // lock_timeout, statement_timeout, serialization failure, deadlock, too many connections.
    if (["55P03", "57014", "40001", "40P01", "53300"].includes(code)) return "STORE_BUSY";
    if (code === "3D000" || code === "3F000") return "STORE_NOT_FOUND";
    // read_only_sql_transaction: a hot standby, or default_transaction_read_only.
    if (code === "25006") return "STORE_READ_ONLY";
    if (code.startsWith("23") || code.startsWith("XX") || code === "42P01" || code === "42883") {
      return "STORE_CORRUPT";
    }
    if (code.startsWith("53")) return "STORE_BUSY";
  }
  const nested = (error as { errors?: unknown }).errors;
  if (Array.isArray(nested) && nested.some((e) => codeOf(e) === "STORE_UNAVAILABLE")) {
    return "STORE_UNAVAILABLE";
  }
  // node-postgres reports a dropped or timed-out connection with these messages and no code.
  if (
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test(
      messageOf(error),
    )
  ) {
    return "STORE_UNAVAILABLE";
  }
  return "IO_ERROR";
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    if (error.message !== "") return error.message;
    const nested = (error as { errors?: unknown }).errors;
    if (Array.isArray(nested) && nested.length > 0) return nested.map(messageOf).join("; ");
    return error.name;
  }
  return String(error);
}

/** The driver's error reduced to its name, code and scrubbed message (it may hold connection details). */
function scrubbedCause(error: unknown, secrets: readonly string[]): Error {
  const cause = new Error(scrubSecrets(messageOf(error), secrets));
  cause.name = error instanceof Error ? error.name : "Error";
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") (cause as Error & { code: string }).code = code;
  return cause;
}
