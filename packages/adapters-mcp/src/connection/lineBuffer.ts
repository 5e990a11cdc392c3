import type { JSONRPCMessage } from "@modelcontextprotocol/client";

/** Default largest message either side of the gateway accepts on stdio. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** What is kept of a dropped message to tell who sent it: its first and last bytes. */
const KEEP = 4096;

/** What can be told about a message dropped for its size, from its first and last bytes. */
export interface OversizeInfo {
  bytes: number;
  limit: number;
  /** The request id, when it could be found (a request or a response). */
  id: string | number | null;
  method: string | null;
  kind: "request" | "notification" | "response" | "unknown";
}

/** A message over the limit: read past and dropped, never buffered whole. */
export class OversizeMessageError extends Error {
  readonly info: OversizeInfo;
  constructor(info: OversizeInfo) {
    super(
      `dropped a ${info.kind === "unknown" ? "message" : info.kind}${info.method ? ` (${info.method})` : ""} of ${mib(info.bytes)} MiB, over the limit of ${mib(info.limit)} MiB per message`,
    );
    this.name = "OversizeMessageError";
    this.info = info;
  }
}

/** `11.0` for 11 MiB; whole limits print without decimals. */
export function mib(bytes: number): string {
  const m = bytes / (1024 * 1024);
  return Number.isInteger(m) ? String(m) : m.toFixed(1);
}

/**
 * Newline-delimited JSON-RPC from a byte stream, with the MCP SDK's ReadBuffer interface
 * (`append`, `readMessage`, `clear`). The SDK's buffer concatenates the whole buffer with
 * every chunk (a 10 MB message arriving in 64 KB chunks copies ~800 MB) and closes the
 * connection for good on a line over its limit; this one keeps the chunks and joins them
 * once per line, and reads past a line over `maxBytes` without keeping it: `readMessage`
 * yields what `onOversize` makes of it (an error response for the sender's pending
 * request), or throws OversizeMessageError, and the stream goes on with the next line.
 * Lines are checked as JSON-RPC by shape (`parseMessage`); the SDK checks params and
 * results against their schemas when it handles them.
 */
export class LineBuffer {
  readonly maxBytes: number;
  readonly #onOversize: ((e: OversizeMessageError) => JSONRPCMessage | null) | undefined;
  #chunks: Buffer[] = [];
  #size = 0;
  /** The line being dropped: its size so far, its first bytes and its latest bytes. */
  #dropping: { bytes: number; head: Buffer; tail: Buffer } | null = null;
  #queue: (JSONRPCMessage | Error)[] = [];
  /** The next message of `#queue` to hand out (a burst queues hundreds: no shift per read). */
  #head = 0;

  constructor(
    maxBytes: number = DEFAULT_MAX_MESSAGE_BYTES,
    onOversize?: (e: OversizeMessageError) => JSONRPCMessage | null,
  ) {
    this.maxBytes = maxBytes;
    this.#onOversize = onOversize;
  }

  append(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      // A line wholly inside this chunk (most are) is decoded where it lies: no copy, no view.
      if (this.#size === 0 && this.#dropping === null && nl - start <= this.maxBytes) {
        this.#line(chunk.toString("utf8", start, nl));
      } else {
        this.#take(chunk.subarray(start, nl));
        this.#endLine();
      }
      start = nl + 1;
    }
    if (start < chunk.length) this.#take(chunk.subarray(start));
  }

  /** The next message, null when none is complete; throws for a line that is not a message. */
  readMessage(): JSONRPCMessage | null {
    const queue = this.#queue;
    if (this.#head >= queue.length) return null;
    const next = queue[this.#head++]!;
    if (this.#head === queue.length) {
      this.#queue = [];
      this.#head = 0;
    }
    if (next instanceof Error) throw next;
    return next;
  }

  clear(): void {
    this.#chunks = [];
    this.#size = 0;
    this.#dropping = null;
    this.#queue = [];
    this.#head = 0;
  }

  #take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.#dropping) {
      const d = this.#dropping;
      d.bytes += part.length;
      d.tail = Buffer.concat([d.tail, part]).subarray(-KEEP);
      return;
    }
    if (this.#size + part.length > this.maxBytes) {
      const line = Buffer.concat([...this.#chunks, part]);
      this.#dropping = {
        bytes: line.length,
        head: Buffer.from(line.subarray(0, KEEP)),
        tail: Buffer.from(line.subarray(-KEEP)),
      };
      this.#chunks = [];
      this.#size = 0;
      return;
    }
    this.#chunks.push(part);
    this.#size += part.length;
  }

  #endLine(): void {
    if (this.#dropping) {
      const { bytes, head, tail } = this.#dropping;
      this.#dropping = null;
      const error = new OversizeMessageError({
        bytes,
        limit: this.maxBytes,
        ...describe(head.toString("utf8"), tail.toString("utf8")),
      });
      this.#queue.push(this.#onOversize?.(error) ?? error);
      return;
    }
    const chunks = this.#chunks;
    const text =
      chunks.length === 1
        ? chunks[0]!.toString("utf8")
        : Buffer.concat(chunks, this.#size).toString("utf8");
    this.#chunks = [];
    this.#size = 0;
    this.#line(text);
  }

  /** One line's text: a message, or the error a line that is none becomes; blank lines are skipped. */
  #line(text: string): void {
    const line = text.charCodeAt(text.length - 1) === 13 ? text.slice(0, -1) : text;
    if (line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === "")) return;
    try {
      this.#queue.push(parseMessage(line));
    } catch (error) {
      this.#queue.push(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/** A JSON-RPC 2.0 request, notification or response, by shape; anything else throws. */
export function parseMessage(line: string): JSONRPCMessage {
  const value = JSON.parse(line) as Record<string, unknown> | null;
  if (typeof value === "object" && value !== null && value.jsonrpc === "2.0") {
    if (typeof value.method === "string") return value as unknown as JSONRPCMessage;
    const id = value.id;
    if (
      (typeof id === "string" || typeof id === "number") &&
      ("result" in value || "error" in value)
    )
      return value as unknown as JSONRPCMessage;
  }
  throw new Error(`not a JSON-RPC 2.0 message: ${line.slice(0, 200)}`);
}

/**
 * The id, method and kind of a message from its first and last bytes: top-level members
 * seen at the start (`{"method":…`, `{"jsonrpc":"2.0","id":…`), or a top-level `id` as the
 * last member (the MCP SDK writes `{"method":…,"params":…,"jsonrpc":"2.0","id":7}`).
 */
function describe(head: string, tail: string): Omit<OversizeInfo, "bytes" | "limit"> {
  const top = topLevelMembers(head);
  let id = top.id;
  if (id === undefined) {
    const last = /"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail);
    if (last) id = JSON.parse(last[1]!) as string | number;
  }
  const method = typeof top.method === "string" ? top.method : null;
  const hasId = id !== undefined && id !== null;
  const kind = method
    ? hasId
      ? "request"
      : "notification"
    : hasId || top.result || top.error
      ? "response"
      : "unknown";
  return { id: hasId ? (id as string | number) : null, method, kind };
}

/** Primitive top-level members read from the start of a JSON object, until the text ends or nests. */
function topLevelMembers(head: string): {
  id?: string | number | null;
  method?: unknown;
  result?: boolean;
  error?: boolean;
} {
  const out: { id?: string | number | null; method?: unknown; result?: boolean; error?: boolean } =
    {};
  const member = /\s*"((?:[^"\\]|\\.)*)"\s*:\s*/y;
  const primitive =
    /(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*"|true|false|null)\s*(,|\})/y;
  let at = head.indexOf("{");
  if (at === -1) return out;
  at++;
  for (;;) {
    member.lastIndex = at;
    const m = member.exec(head);
    if (!m) return out;
    const key = JSON.parse(`"${m[1]}"`) as string;
    if (key === "result" || key === "error") out[key] = true;
    primitive.lastIndex = member.lastIndex;
    const v = primitive.exec(head);
    // A nested value (params, result) ends what can be read cheaply from the start.
    if (!v) return out;
    const value = JSON.parse(v[1]!) as unknown;
    if (key === "id" && (typeof value === "string" || typeof value === "number" || value === null))
      out.id = value;
    if (key === "method") out.method = value;
    if (v[2] === "}") return out;
    at = primitive.lastIndex;
  }
}
