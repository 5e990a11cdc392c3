import {
  CallOutcomeSchema,
  EVENT_SCHEMA_VERSION,
  EVENT_TYPES,
  ToolCallFinishedSchema,
  ToolCallStartedSchema,
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
  // The commonest events first: they are known, current-version types by construction.
  if (typeof json === "object" && json !== null) {
    const fast = decodeCommonEvent(json as Record<string, unknown>);
    if (fast) return { ok: true, event: fast };
  }
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
 * The schema's result for the commonest events, `ToolsInvalidated` (most of a long log),
 * `ToolsFetched` and the two a tools/call records (C4), built without zod; anything unusual returns undefined and goes through the schema. The output is
 * the schema's to the key order, so stored JSON and retry fingerprints do not depend on it.
 */
export function decodeCommonEvent(raw: Record<string, unknown>): ToolledgerEvent | undefined {
  if (raw.v !== EVENT_SCHEMA_VERSION) return undefined;
  // An imported event's origin is checked by its schema (the hand checks know no origin).
  if ("origin" in raw) return undefined;
  if (raw.type === "ToolsFetched") return decodeToolsFetched(raw);
  if (raw.type === "ToolCallStarted") return decodeCallStarted(raw);
  if (raw.type === "ToolCallFinished") return decodeCallFinished(raw);
  if (raw.type !== "ToolsInvalidated") return undefined;
  const { extension, at } = raw;
  // Already the schema's output (the usual line of a log): the parsed object itself, no copy.
  if (typeof at === "string" && typeof extension === "string" && hasKeys(raw, INVALIDATED_KEYS))
    return raw as ToolledgerEvent;
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

const FETCH_KEYS: ReadonlySet<string> = new Set([
  "type",
  "v",
  "at",
  "extension",
  "startedAtVersion",
  "tools",
  "complete",
  "reason",
  "wireNames",
  "scope",
]);
/** McpToolSchema's keys in its order (zod's output lists them first, in this order). */
const TOOL_KEYS: ReadonlyMap<string, number> = new Map(
  ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta"].map(
    (k, i) => [k, i],
  ),
);

/**
 * `ToolsFetched` (each fetch carries every tool) without zod: the schema copies every tool,
 * this keeps the parsed ones, which the schema's output equals key for key. Anything it
 * would change (an unknown top-level key, a tool whose keys are out of the schema's order,
 * a `_meta` it would copy differently) goes through the schema instead.
 */
function decodeToolsFetched(raw: Record<string, unknown>): ToolledgerEvent | undefined {
  for (const key in raw) if (!FETCH_KEYS.has(key) || raw[key] === undefined) return undefined;
  const { at, extension, startedAtVersion, tools, complete, reason, wireNames, scope } = raw;
  if (at !== undefined && typeof at !== "string") return undefined;
  if (typeof extension !== "string") return undefined;
  if (!Number.isSafeInteger(startedAtVersion) || (startedAtVersion as number) < 0) return undefined;
  if (!Array.isArray(tools)) return undefined;
  for (let i = 0; i < tools.length; i++) if (!isPlainTool(tools[i])) return undefined;
  if (complete !== undefined && typeof complete !== "boolean") return undefined;
  if (reason !== undefined && typeof reason !== "string") return undefined;
  if (wireNames !== undefined && !isWireNameList(wireNames)) return undefined;
  if (scope !== undefined && scope !== "extension") return undefined;
  // Keys already in the schema's order: the parsed object is the schema's output.
  if (inSchemaOrder(raw)) return raw as ToolledgerEvent;
  const event: Record<string, unknown> = { type: "ToolsFetched", v: EVENT_SCHEMA_VERSION };
  if (at !== undefined) event.at = at;
  event.extension = extension;
  event.startedAtVersion = startedAtVersion;
  event.tools = tools;
  if (complete !== undefined) event.complete = complete;
  if (reason !== undefined) event.reason = reason;
  if (wireNames !== undefined) event.wireNames = wireNames;
  if (scope !== undefined) event.scope = scope;
  return event as ToolledgerEvent;
}

/** A tool McpToolSchema accepts and would output unchanged (same keys, same order). */
function isPlainTool(tool: unknown): boolean {
  if (typeof tool !== "object" || tool === null || Array.isArray(tool)) return false;
  if (Object.getPrototypeOf(tool) !== Object.prototype) return false;
  const t = tool as Record<string, unknown>;
  let last = -1;
  let extra = false;
  for (const key in t) {
    const at = TOOL_KEYS.get(key);
    if (at === undefined) {
      extra = true;
      continue;
    }
    if (extra || at < last || t[key] === undefined) return false;
    last = at;
  }
  if (typeof t.name !== "string") return false;
  if (t.title !== undefined && typeof t.title !== "string") return false;
  if (t.description !== undefined && typeof t.description !== "string") return false;
  const meta = t._meta;
  if (meta !== undefined) {
    // zod's record keeps plain objects only, and drops a `__proto__` key.
    if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return false;
    if (Object.getPrototypeOf(meta) !== Object.prototype || Object.hasOwn(meta, "__proto__"))
      return false;
  }
  return true;
}

function isWireNameList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return false;
    const keys = Object.keys(item);
    if (keys.length !== 2 || keys[0] !== "rawName" || keys[1] !== "wireName") return false;
    const { rawName, wireName } = item as Record<string, unknown>;
    if (typeof rawName !== "string" || typeof wireName !== "string") return false;
  }
  return true;
}

// The schemas' own key lists, in their output order.
const STARTED_ORDER = keyOrder(Object.keys(ToolCallStartedSchema.shape));
const FINISHED_ORDER = keyOrder(Object.keys(ToolCallFinishedSchema.shape));
const OUTCOMES: ReadonlySet<unknown> = new Set(CallOutcomeSchema.options);

/**
 * `ToolCallStarted` (C4: every tools/call records one) without zod. As the decider writes it
 * (schema keys in order, defaults filled) it is the schema's output itself; a missing default
 * is filled here; anything else (unknown or out-of-order keys) goes through the schema.
 */
function decodeCallStarted(raw: Record<string, unknown>): ToolledgerEvent | undefined {
  if (!hasKeysInOrder(raw, STARTED_ORDER)) return undefined;
  const { at, callId, name, publicName, owner, rawName } = raw;
  if (at !== undefined && typeof at !== "string") return undefined;
  if (typeof callId !== "string" || callId === "" || typeof name !== "string") return undefined;
  if (!isOptionalNullableString(publicName)) return undefined;
  if (!isOptionalNullableString(owner) || !isOptionalNullableString(rawName)) return undefined;
  if (publicName !== undefined && owner !== undefined && rawName !== undefined)
    return raw as ToolledgerEvent;
  const event: Record<string, unknown> = { type: "ToolCallStarted", v: EVENT_SCHEMA_VERSION };
  if (at !== undefined) event.at = at;
  event.callId = callId;
  event.name = name;
  event.publicName = publicName ?? null;
  event.owner = owner ?? null;
  event.rawName = rawName ?? null;
  if ("arguments" in raw) event.arguments = raw.arguments;
  return event as ToolledgerEvent;
}

/** `ToolCallFinished` without zod, as `decodeCallStarted`. */
function decodeCallFinished(raw: Record<string, unknown>): ToolledgerEvent | undefined {
  if (!hasKeysInOrder(raw, FINISHED_ORDER)) return undefined;
  const { at, callId, outcome, durationMs, reason, error } = raw;
  if (at !== undefined && typeof at !== "string") return undefined;
  if (typeof callId !== "string" || callId === "" || !OUTCOMES.has(outcome)) return undefined;
  // z.number() refuses NaN and the infinities; nonnegative() lets -0 through as -0.
  if (typeof durationMs !== "number" || !Number.isFinite(durationMs) || durationMs < 0)
    return undefined;
  if (!isOptionalNullableString(reason) || !isOptionalNullableString(error)) return undefined;
  if (reason !== undefined && error !== undefined) return raw as ToolledgerEvent;
  const event: Record<string, unknown> = { type: "ToolCallFinished", v: EVENT_SCHEMA_VERSION };
  if (at !== undefined) event.at = at;
  event.callId = callId;
  event.outcome = outcome;
  event.durationMs = durationMs;
  event.reason = reason ?? null;
  event.error = error ?? null;
  if ("result" in raw) event.result = raw.result;
  return event as ToolledgerEvent;
}

function keyOrder(keys: readonly string[]): ReadonlyMap<string, number> {
  return new Map(keys.map((k, i) => [k, i]));
}

/**
 * A plain object whose own keys are all the schema's, none undefined, in the schema's order
 * (zod's output order), so the object or a copy in that order is the schema's output.
 */
function hasKeysInOrder(raw: Record<string, unknown>, order: ReadonlyMap<string, number>): boolean {
  if (Object.getPrototypeOf(raw) !== Object.prototype) return false;
  let last = -1;
  for (const key in raw) {
    const at = order.get(key);
    if (at === undefined || at < last || raw[key] === undefined) return false;
    last = at;
  }
  return true;
}

function isOptionalNullableString(value: unknown): boolean {
  return value === undefined || value === null || typeof value === "string";
}

const INVALIDATED_KEYS = ["type", "v", "at", "extension"] as const;
const FETCH_ORDER: ReadonlyMap<string, number> = new Map([...FETCH_KEYS].map((k, i) => [k, i]));

/** Exactly these own keys, in this order. */
function hasKeys(raw: Record<string, unknown>, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in raw) if (key !== keys[i++]) return false;
  return i === keys.length;
}

/** The (known, checked) top-level keys of a ToolsFetched appear in the schema's order. */
function inSchemaOrder(raw: Record<string, unknown>): boolean {
  let last = -1;
  for (const key in raw) {
    const at = FETCH_ORDER.get(key)!;
    if (at < last) return false;
    last = at;
  }
  return true;
}
