import { StringDecoder } from "node:string_decoder";
import type { Redactor } from "../redaction/redactor.js";

/**
 * The end of what a server wrote to stderr, redacted as it arrives: text is redacted in
 * pieces cut where no secret crosses, and only redacted text is ever dropped, so neither
 * the ring's cut nor a reader's length limit can leave part of a secret behind.
 */
export class StderrTail {
  /** UTF-8 characters split across chunks are joined before they are searched for secrets. */
  readonly #decoder = new StringDecoder("utf8");
  readonly #redactor: Redactor;
  readonly #capacity: number;
  /** Redacted text, at most `capacity` characters. */
  #done = "";
  /** The newest text, kept raw until it is long enough that a secret it starts must end inside it. */
  #raw = "";

  constructor(redactor: Redactor, capacity = 64 * 1024) {
    this.#redactor = redactor;
    this.#capacity = capacity;
  }

  push(chunk: Buffer): void {
    this.#raw += this.#decoder.write(chunk);
    const keep = this.#redactor.maxMatchLength;
    if (this.#raw.length <= keep + 4096) return;
    const cut = this.#redactor.cutBefore(this.#raw, this.#raw.length - keep);
    this.#done += this.#redactor.redact(this.#raw.slice(0, cut));
    this.#raw = this.#raw.slice(cut);
    if (this.#done.length > this.#capacity) this.#done = this.#done.slice(-this.#capacity / 2);
  }

  /** The last `max` characters (after redaction), trimmed; empty when nothing was written. */
  read(max: number): string {
    const text = (this.#done + this.#redactor.redact(this.#raw)).trim();
    return text.length > max ? `…${text.slice(-max)}` : text;
  }
}
