import type { z } from "zod";
import type { CallRefusal } from "../calls/checkCall.js";
import { EVENT_SCHEMA_VERSION, type ToolledgerEvent } from "../events/events.js";
import type { CommandSchema } from "./command.js";

export type CommandErrorCode =
  | "INVALID_COMMAND"
  | "UNKNOWN_COMMAND"
  | "UNKNOWN_DEFERRAL_MODE"
  | "EMPTY_EXTENSION_KEY"
  | "UNKNOWN_EXTENSION"
  | "DUPLICATE_CALL_ID"
  | "UNKNOWN_CALL_ID"
  | "UNKNOWN_TASK"
  | "DUPLICATE_TASK_ID"
  | "CONVERSATION_EXISTS"
  | "UNKNOWN_DEFINITION"
  | "NOT_AWAITING"
  | "STALE_REVIEW";

export interface CommandError {
  code: CommandErrorCode;
  message: string;
  /** The dotted path of the offending field (`tools.3.name`) when a field is at fault. */
  path?: string;
}

export type Decision =
  | {
      ok: true;
      events: ToolledgerEvent[];
      /** StartCall only (C4, D9): what the model is told of the refusal these events record. */
      refusal?: CallRefusal;
    }
  | { ok: false; error: CommandError };

export type Rejection = { ok: false; error: CommandError };
/** A command as its schema reads it (defaults applied, payloads as the log reloads them). */
export type ParsedCommand = z.output<typeof CommandSchema>;
export type At = { at?: string };

/** The schema version stamped on every event decided now. */
export const v = EVENT_SCHEMA_VERSION;

export function accepted(events: ToolledgerEvent[]): Decision {
  return { ok: true, events };
}

export function rejected(code: CommandErrorCode, message: string, path?: string): Rejection {
  return { ok: false, error: path === undefined ? { code, message } : { code, message, path } };
}
