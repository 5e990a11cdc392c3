import type { ToolledgerEvent, ToolledgerEventInput } from "../events/events.js";

/**
 * Expected version of a stream when appending: `"any"`, `"no_stream"` (must not exist yet),
 * `"stream_exists"` (must have at least one event), or an exact version (the stream's
 * last position; 0 means the stream is empty).
 */
export type ExpectedVersion = "any" | "no_stream" | "stream_exists" | number;

/** One event to append. `eventId` is client-supplied and unique in the whole store. */
export interface EventToAppend {
  eventId: string;
  event: ToolledgerEventInput;
  metadata?: Record<string, unknown>;
}

/** An event as the store holds it. Positions are 1-based. */
export interface StoredEvent {
  streamId: string;
  /** 1-based position in its stream. */
  streamPosition: number;
  /** Position in the whole store, strictly increasing in append order. */
  globalPosition: number;
  eventId: string;
  event: ToolledgerEvent;
  metadata: Record<string, unknown>;
  /** ISO-8601 time the store recorded the event. */
  recordedAt: string;
}

export type AppendRejection =
  | { code: "VERSION_CONFLICT"; streamId: string; expected: ExpectedVersion; actual: number }
  | { code: "DUPLICATE_EVENT"; eventId: string; message: string }
  | { code: "INVALID_EVENT"; index: number; path: string; message: string };

export type AppendResult =
  | {
      ok: true;
      /** The stream's version after the append (its last stream position). */
      nextExpectedVersion: number;
      firstGlobalPosition: number;
      lastGlobalPosition: number;
    }
  | { ok: false; error: AppendRejection };

export interface ReadStreamOptions {
  /** First stream position to return (1-based, inclusive). Default 1. */
  fromPosition?: number;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Return events with a global position strictly greater than this. Default 0. */
  after?: number;
  /** Page size. Default 1000. */
  limit?: number;
}

/**
 * The append-only log. Domain outcomes (conflicts, duplicates, invalid events) are result
 * values; infrastructure failures throw EventStoreError.
 */
export interface EventStore {
  append(
    streamId: string,
    events: readonly EventToAppend[],
    expected?: ExpectedVersion,
  ): Promise<AppendResult>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  readAll(options?: ReadAllOptions): Promise<StoredEvent[]>;
  /** The stream's version (last position), 0 when it has no events. */
  streamVersion(streamId: string): Promise<number>;
  close(): Promise<void>;
}

export type EventStoreErrorCode =
  | "STORE_BUSY"
  | "STORE_CLOSED"
  | "STORE_CORRUPT"
  | "SCHEMA_TOO_NEW"
  | "NOT_A_DATABASE"
  | "IO_ERROR"
  /** The database server cannot be reached or dropped the connection (retry: ids make appends idempotent). */
  | "STORE_UNAVAILABLE"
  /** Opened for reading where no event store exists (nothing was created). */
  | "STORE_NOT_FOUND"
  /** The store cannot be written: opened read-only, or its file, folder or server refuses writes. */
  | "STORE_READ_ONLY";

/** Infrastructure failure of a store, checked by `code`. */
export class EventStoreError extends Error {
  readonly code: EventStoreErrorCode;
  /**
   * What to do, in the library's terms (`open it with readOnly`), when the message ends with
   * it (`…; <advice>`): an application that says it in its own terms (a command-line flag)
   * replaces it.
   */
  readonly advice: string | undefined;
  constructor(
    code: EventStoreErrorCode,
    message: string,
    options?: { cause?: unknown; advice?: string },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "EventStoreError";
    this.code = code;
    this.advice = options?.advice;
  }

  /** The message without its trailing library advice: what went wrong, and where. */
  get problem(): string {
    const tail = this.advice === undefined ? "" : `; ${this.advice}`;
    return tail !== "" && this.message.endsWith(tail)
      ? this.message.slice(0, -tail.length)
      : this.message;
  }
}
