import type { Readable, Writable } from "node:stream";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { LineBuffer, mib, OversizeMessageError } from "../connection/lineBuffer.js";
import { knownListLine, serializeMessage } from "./knownJson.js";

/**
 * The gateway's side of stdio. Unlike the SDK's transport, which closes itself for good on a
 * line over 10 MiB (and the client then waits forever), it reads past a message over the
 * limit, answers a request with an error naming the limit, reports the drop, and keeps
 * serving. `onclose` fires when the client ends the stream.
 */
export class StdioLineServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #buffer: LineBuffer;
  #closed = false;

  constructor(stdin: Readable, stdout: Writable, options: { maxMessageBytes?: number } = {}) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#buffer = new LineBuffer(options.maxMessageBytes);
  }

  readonly #onData = (chunk: Buffer): void => {
    this.#buffer.append(chunk);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        this.#dropped(error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  };

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  readonly #onEnd = (): void => {
    void this.close();
  };

  async start(): Promise<void> {
    this.#stdin.on("data", this.#onData);
    this.#stdin.on("error", this.#onError);
    this.#stdin.on("end", this.#onEnd);
  }

  /**
   * Notifications and requests sent in one turn of the event loop leave in one write: a burst
   * of relayed progress reports is then one string and one system call, not a write each. A
   * response with nothing waiting before it is written at once (it is what the client waits
   * for: bench 5a); one sent while lines wait joins them, so the order is always the order sent.
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#lines.length === 0 && !("method" in message)) {
      // A served tool list is written from the bytes kept for it (bench 5b).
      const line = knownListLine(message) ?? `${JSON.stringify(message)}\n`;
      return new Promise((resolve) => this.#write(line, resolve));
    }
    return new Promise((resolve) => {
      this.post(message);
      this.#sent.push(resolve);
    });
  }

  /**
   * As `send`, for a notification nobody waits on (a relayed progress report): queued for
   * this turn's write with the others, without a promise each.
   */
  post(message: JSONRPCMessage): void {
    this.#lines.push(serializeMessage(message));
    if (this.#lines.length === 1) process.nextTick(this.#flush);
  }

  #lines: string[] = [];
  #sent: (() => void)[] = [];

  readonly #flush = (): void => {
    const text = `${this.#lines.join("\n")}\n`;
    const sent = this.#sent;
    this.#lines = [];
    this.#sent = [];
    this.#write(text, () => {
      for (const resolve of sent) resolve();
    });
  };

  /**
   * `done` once the stream took the text (at once, or at its next drain). A line in parts
   * (`knownListLine`) goes out in one corked write, its parts in order.
   */
  #write(text: string | readonly [Buffer, string], done: () => void): void {
    let ok: boolean;
    if (typeof text === "string") ok = this.#stdout.write(text);
    else {
      this.#stdout.cork();
      this.#stdout.write(text[0]);
      ok = this.#stdout.write(text[1]);
      this.#stdout.uncork();
    }
    if (ok) done();
    else this.#stdout.once("drain", done);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off("data", this.#onData);
    this.#stdin.off("error", this.#onError);
    this.#stdin.off("end", this.#onEnd);
    if (this.#stdin.listenerCount("data") === 0) this.#stdin.pause();
    this.#buffer.clear();
    this.onclose?.();
  }

  /** A line that was not a message, or one over the limit: a request still gets its answer. */
  #dropped(error: unknown): void {
    const e = error instanceof Error ? error : new Error(String(error));
    if (e instanceof OversizeMessageError && e.info.kind === "request" && e.info.id !== null) {
      const { bytes, limit } = e.info;
      void this.send({
        jsonrpc: "2.0",
        id: e.info.id,
        error: {
          code: -32600,
          message: `request of ${mib(bytes)} MiB is over this gateway's limit of ${mib(limit)} MiB per message; it was not processed (send less, or start the gateway with a higher limit: toolledger serve --max-message-mb)`,
        },
      });
    }
    this.onerror?.(e);
  }
}
