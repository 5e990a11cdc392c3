import type { Writable } from "node:stream";
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * The SDK's stdio ReadBuffer, without its quadratic copy: it concatenates the whole buffer
 * with every chunk, so a 10 MB message arriving in 64 KB chunks copies ~800 MB. This keeps
 * the chunks and joins them once a line is complete. Same limit. Each line is checked to be a
 * JSON-RPC message by its shape; the SDK checks params and results against their schemas when
 * it handles them (its union schema tried every alternative first: most of a relayed
 * notification's cost).
 */
export class LineBuffer {
  readonly #max: number;
  #chunks: Buffer[] = [];
  #length = 0;
  #complete = false;

  constructor(maxBufferSize = STDIO_DEFAULT_MAX_BUFFER_SIZE) {
    this.#max = maxBufferSize;
  }

  append(chunk: Buffer): void {
    if (this.#length + chunk.length > this.#max) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#max} bytes`);
    }
    this.#chunks.push(chunk);
    this.#length += chunk.length;
    if (!this.#complete && chunk.indexOf(10) !== -1) this.#complete = true;
  }

  readMessage(): JSONRPCMessage | null {
    if (!this.#complete) return null;
    const buffer = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    const end = buffer.indexOf(10);
    const line = buffer.toString("utf8", 0, end).replace(/\r$/, "");
    const rest = buffer.subarray(end + 1);
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#length = rest.length;
    this.#complete = rest.indexOf(10) !== -1;
    return parseMessage(line);
  }

  clear(): void {
    this.#chunks = [];
    this.#length = 0;
    this.#complete = false;
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
 * Puts a LineBuffer into an SDK stdio transport. `_readBuffer` is private to the SDK; if a
 * later SDK renames it, this sets an unused field and the SDK's own buffer keeps working.
 */
export function useLineBuffer(transport: object): void {
  if ("_readBuffer" in transport)
    (transport as { _readBuffer: unknown })._readBuffer = new LineBuffer();
}

/**
 * Joins the writes made in one turn of the event loop into one system call: a burst of
 * relayed notifications (1,000 progress reports) is then a few writes, not a thousand.
 */
export function coalesceWrites(stream: Writable): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  let corked = false;
  stream.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      stream.cork();
      process.nextTick(() => {
        corked = false;
        stream.uncork();
      });
    }
    // Within the tick the data only queues (it is flushed at uncork), so no caller waits for a drain.
    return write(...args) || corked;
  }) as Writable["write"];
}
