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
}

/** The line format of `toolledger export` (and one of the two formats `import` and `replay` read). */
export interface ExportLine {
  session: string;
  position: number;
  eventId: string;
  recordedAt: string;
  metadata: Record<string, unknown>;
  event: ToolledgerEvent;
}
