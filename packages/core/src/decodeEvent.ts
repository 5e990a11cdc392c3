import {
  EVENT_SCHEMA_VERSION,
  EVENT_TYPES,
  type ToolledgerEvent,
  ToolledgerEventSchema,
} from "./events.js";

export type DecodeErrorCode =
  | "NOT_AN_OBJECT"
  | "UNKNOWN_TYPE"
  | "UNSUPPORTED_VERSION"
  | "INVALID_FIELD";

export interface DecodeError {
  code: DecodeErrorCode;
  /** Dotted path of the failing field (`tools.3.name`), empty for the whole event. */
  path: string;
  message: string;
}

export type DecodeResult = { ok: true; event: ToolledgerEvent } | { ok: false; error: DecodeError };

const knownTypes: ReadonlySet<string> = new Set(EVENT_TYPES);

/**
 * Decodes a parsed JSON value into a typed event (E1/E2). Unknown types and newer schema
 * versions are typed errors, never silent skips.
 */
export function decodeEvent(json: unknown): DecodeResult {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return fail("NOT_AN_OBJECT", "", "an event must be a JSON object with `type` and `v`");
  }
  const raw = json as Record<string, unknown>;
  if (typeof raw.type !== "string" || !knownTypes.has(raw.type)) {
    return fail(
      "UNKNOWN_TYPE",
      "type",
      `unknown event type ${JSON.stringify(raw.type)}; known types: ${EVENT_TYPES.join(", ")}`,
    );
  }
  if (typeof raw.v === "number" && Number.isInteger(raw.v) && raw.v > EVENT_SCHEMA_VERSION) {
    return fail(
      "UNSUPPORTED_VERSION",
      "v",
      `${raw.type} has schema version ${raw.v}, newer than the supported version ${EVENT_SCHEMA_VERSION}; upgrade toolledger to read it`,
    );
  }
  const fast = decodeCommonEvent(raw);
  if (fast) return { ok: true, event: fast };
  const parsed = ToolledgerEventSchema.safeParse(json);
  if (parsed.success) return { ok: true, event: parsed.data };
  const issue = parsed.error.issues[0];
  const path = issue ? issue.path.map(String).join(".") : "";
  return fail(
    "INVALID_FIELD",
    path,
    `${raw.type}: ${path || "event"}: ${issue?.message ?? "invalid"}`,
  );
}

/** Thrown form of a decode failure, for callers that prefer exceptions. */
export class EventDecodeError extends Error {
  readonly code: DecodeErrorCode;
  readonly path: string;
  constructor(error: DecodeError, where?: string) {
    super(where ? `${where}: ${error.message}` : error.message);
    this.name = "EventDecodeError";
    this.code = error.code;
    this.path = error.path;
  }
}

/** Decodes or throws an EventDecodeError; `where` (e.g. "line 12") prefixes the message. */
export function decodeEventOrThrow(json: unknown, where?: string): ToolledgerEvent {
  const result = decodeEvent(json);
  if (!result.ok) throw new EventDecodeError(result.error, where);
  return result.event;
}

function fail(code: DecodeErrorCode, path: string, message: string): DecodeResult {
  return { ok: false, error: { code, path, message } };
}

/**
 * The schema's result for the commonest event, `ToolsInvalidated` (most of a long log), built
 * without zod; anything unusual returns undefined and goes through the schema. The output is
 * the schema's to the key order, so stored JSON and retry fingerprints do not depend on it.
 */
export function decodeCommonEvent(raw: Record<string, unknown>): ToolledgerEvent | undefined {
  if (raw.type !== "ToolsInvalidated" || raw.v !== EVENT_SCHEMA_VERSION) return undefined;
  const { extension, at } = raw;
  if (typeof extension !== "string") {
    // R11: the host's own invalidate has no extension.
    if ("extension" in raw) return undefined;
    if (typeof at === "string") return { type: "ToolsInvalidated", v: EVENT_SCHEMA_VERSION, at };
    return "at" in raw ? undefined : { type: "ToolsInvalidated", v: EVENT_SCHEMA_VERSION };
  }
  if (typeof at === "string")
    return { type: "ToolsInvalidated", v: EVENT_SCHEMA_VERSION, at, extension };
  if (!("at" in raw)) return { type: "ToolsInvalidated", v: EVENT_SCHEMA_VERSION, extension };
  return undefined;
}
