import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { Redactor } from "../redaction/redactor.js";
import { endWithThisProcess } from "./endWithThisProcess.js";
import { oversizeReply } from "./oversize.js";
import { afterStart, childProcessOf, useLineBuffer } from "./sdkPatches.js";
import { StderrTail } from "./stderrTail.js";

/** What `stderrTail` returns, and what a failure message quotes of it. */
const STDERR_TAIL_CHARS = 4096;
const STDERR_IN_MESSAGE_CHARS = 800;

/**
 * A stdio server's process as its connection watches it: the tail of its stderr (redacted as
 * it arrives), how it exited, and its end with this process. A server reached over HTTP has
 * none of these: its tail stays empty and it never exits.
 */
export class ServerProcess {
  readonly #stderr: StderrTail;
  #exit: string | null = null;

  constructor(redactor: Redactor) {
    this.#stderr = new StderrTail(redactor);
  }

  /** A stdio server's stderr (kept for failure messages), its oversized lines, and its exit. */
  watch(transport: StdioClientTransport, maxMessageBytes: number): void {
    transport.stderr?.on("data", (chunk: Buffer) => this.#stderr.push(chunk));
    // An oversized line fails only the request it answered (see useLineBuffer).
    useLineBuffer(transport, maxMessageBytes, oversizeReply);
    afterStart(transport, () => {
      // Without the process (a future SDK), reports just lack the exit code.
      const child = childProcessOf(transport);
      child?.once("exit", (code, signal) => {
        this.#exit = signal ? `signal ${signal}` : `code ${code}`;
      });
      if (child) endWithThisProcess(child);
    });
  }

  /** The last few KB the server wrote to stderr, secrets redacted. */
  get stderrTail(): string {
    return this.#stderr.read(STDERR_TAIL_CHARS);
  }

  /** How it exited, for a failure message (empty while it runs). */
  exitText(): string {
    return this.#exit ? ` (exited with ${this.#exit})` : "";
  }

  /** The end of its stderr, for a failure message (empty when it wrote nothing). */
  stderrText(): string {
    const tail = this.#stderr.read(STDERR_IN_MESSAGE_CHARS);
    return tail === "" ? "" : `; stderr tail: ${tail}`;
  }
}
