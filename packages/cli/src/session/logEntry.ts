import type { ToolledgerEvent } from "@toolledger/core";

/** One event of a session log with where it sits, whether it came from the store or a JSONL file. */
export interface LogEntry {
  /** 1-based position in the session (the store's stream position, or the event's ordinal in a file). */
  position: number;
  event: ToolledgerEvent;
  eventId?: string;
  /** When it was recorded: the store's time, else the event's own `at`. */
  recordedAt?: string;
  metadata?: Record<string, unknown>;
  /** For JSONL input: the file line it came from. */
  line?: number;
  /** How replay shows the position when it is not the conversation's own (`h12`: the registry stream's event 12). */
  label?: string;
  /** The stream it belongs to, when the log holds more than one (a conversation and its registry, C1). */
  streamId?: string;
  /** Its position in that stream. */
  streamPosition?: number;
  /** Its position in the whole store (orders the streams of a conversation). */
  globalPosition?: number;
}

/** The line format of `toolledger export` (and one of the two formats `import` and `replay` read). */
export interface ExportLine {
  /** The stream the event belongs to (a conversation, or the registry stream it observes). */
  session: string;
  /** Its position in that stream. */
  position: number;
  /** Its position in the source store; orders a conversation's streams on import and replay. */
  globalPosition?: number;
  eventId: string;
  recordedAt: string;
  metadata: Record<string, unknown>;
  event: ToolledgerEvent;
}
