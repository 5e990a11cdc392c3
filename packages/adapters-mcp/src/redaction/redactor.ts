import type { ExtensionConfig } from "../extensionConfig.js";
import { canonical } from "./canonical.js";
import { configSecrets, MIN_SECRET_LENGTH, secretParts } from "./secretParts.js";
import { type SecretPattern, secretPatterns } from "./secretPattern.js";

/**
 * Removes secret values from text before it reaches an event, a log line or an error. Built
 * from the configs' secret values (env and header values and their parts, credential
 * arguments, URL credentials); each is found literally and in the encodings a server may
 * echo it in: JSON and JS escapes at any depth, percent-encoding, `+` for spaces, split
 * across lines, base64 (also inside Basic auth's `user:password`) and hex. Cuts (`head`,
 * `tail`) redact first and cut after, so no part of a secret survives a truncation.
 */
export class Redactor {
  /** What a secret is replaced with. */
  static readonly MARKER = "[redacted]";
  /** A redactor that knows no secret (text passes unchanged). */
  static readonly none = new Redactor([]);

  /** The redactor for every secret of these extension configs. */
  static forConfigs(configs: readonly ExtensionConfig[]): Redactor {
    return new Redactor(configs.flatMap(configSecrets));
  }

  /** The redactor for these values and their parts (`Bearer X` also redacts X). */
  static forValues(values: Iterable<string>): Redactor {
    return new Redactor([...values].flatMap(secretParts));
  }

  /** The secret values. */
  readonly #secrets: readonly string[];
  readonly #patterns: readonly SecretPattern[];
  /** The longest text one match can span. */
  readonly #maxLength: number;

  private constructor(values: readonly string[]) {
    this.#secrets = [...new Set(values)].filter((v) => v.length >= MIN_SECRET_LENGTH);
    this.#patterns = this.#secrets.flatMap((s) => secretPatterns(s, MIN_SECRET_LENGTH));
    this.#maxLength = Math.max(0, ...this.#patterns.map((p) => p.maxLength));
  }

  /** An upper bound of the length of text one secret occupies in any covered encoding. */
  get maxMatchLength(): number {
    return this.#maxLength;
  }

  /** How many distinct secret values (parts included) this redactor knows. */
  get size(): number {
    return this.#secrets.length;
  }

  /** A redactor for the secrets of both. */
  with(other: Redactor): Redactor {
    if (other.size === 0) return this;
    if (this.size === 0) return other;
    return new Redactor([...this.#secrets, ...other.#secrets]);
  }

  /**
   * `text` with every secret, in every covered encoding, replaced by MARKER. Every character
   * of any occurrence goes, overlapping ones included (two secrets may share an escape).
   */
  redact(text: string): string {
    const spans: [number, number][] = [];
    for (const p of this.#candidates(text)) {
      const re = p.whole();
      re.lastIndex = 0;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        spans.push([m.index, m.index + m[0].length]);
        re.lastIndex = m.index + 1;
      }
    }
    if (spans.length === 0) return text;
    spans.sort((a, b) => a[0] - b[0]);
    let out = "";
    let at = 0;
    for (let i = 0; i < spans.length; ) {
      const start = spans[i]![0];
      let end = spans[i]![1];
      for (i++; i < spans.length && spans[i]![0] <= end; i++) end = Math.max(end, spans[i]![1]);
      out += text.slice(at, start) + Redactor.MARKER;
      at = end;
    }
    return out + text.slice(at);
  }

  /** Whether `text` holds a secret in any covered encoding. */
  finds(text: string): boolean {
    return this.#candidates(text).some((p) => {
      const re = p.whole();
      re.lastIndex = 0;
      return re.test(text);
    });
  }

  /** The patterns that may match in `text`: the reduced text holds their needle, or they have none. */
  #candidates(text: string): readonly SecretPattern[] {
    if (this.#patterns.length === 0 || text.length < MIN_SECRET_LENGTH) return [];
    let reduced: string | undefined;
    return this.#patterns.filter((p) => {
      if (p.needle === null) return true;
      reduced ??= canonical(text);
      return reduced.includes(p.needle);
    });
  }

  /**
   * A JSON-like value with every string (object keys included) redacted. Returns the same
   * value when it holds no secret, so clean tool lists cost one scan of their JSON.
   */
  redactValue<T>(value: T): T {
    if (this.#patterns.length === 0) return value;
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch {
      json = undefined;
    }
    // Every covered encoding of a string's content also matches in its JSON form.
    if (json !== undefined && !this.finds(json)) return value;
    return this.#walk(value) as T;
  }

  /** At most `max` characters from the start of `text` (plus `…` when cut), redacted before the cut. */
  head(text: string, max: number): string {
    if (text.length <= max) return this.redact(text);
    const end = this.cutBefore(text, Math.min(text.length, 2 * max + 1024));
    return `${this.redact(text.slice(0, end)).slice(0, max)}…`;
  }

  /** At most `max` characters from the end of `text` (`…` first when cut), redacted before the cut. */
  tail(text: string, max: number): string {
    let start = Math.max(0, text.length - (2 * max + 1024));
    const candidates = this.#candidates(text.slice(Math.max(0, start - this.#maxLength)));
    for (
      let s = this.#straddling(text, start, candidates);
      s;
      s = this.#straddling(text, start, candidates)
    )
      start = s.end;
    const out = this.redact(text.slice(start));
    if (out.length > max) return `…${out.slice(-max)}`;
    return start > 0 ? `…${out}` : out;
  }

  /**
   * The nearest position at or before `at` that no secret in `text` crosses: raw text may be
   * cut there (and each side redacted on its own) without leaving a fragment of a secret.
   */
  cutBefore(text: string, at: number): number {
    let pos = Math.min(at, text.length);
    const candidates = this.#candidates(
      text.slice(Math.max(0, pos - this.#maxLength), pos + this.#maxLength),
    );
    for (
      let s = this.#straddling(text, pos, candidates);
      s;
      s = this.#straddling(text, pos, candidates)
    )
      pos = s.start;
    return pos;
  }

  /** A secret occurrence that starts before `pos` and ends after it, if any. */
  #straddling(
    text: string,
    pos: number,
    candidates: readonly SecretPattern[],
  ): { start: number; end: number } | null {
    if (pos <= 0 || pos >= text.length) return null;
    for (const p of candidates) {
      const re = p.whole();
      re.lastIndex = Math.max(0, pos - p.maxLength);
      for (let m = re.exec(text); m !== null && m.index < pos; m = re.exec(text)) {
        if (m.index + m[0].length > pos) return { start: m.index, end: m.index + m[0].length };
        // Overlapping occurrences: look again one character on.
        re.lastIndex = m.index + 1;
      }
    }
    return null;
  }

  #walk(value: unknown): unknown {
    if (typeof value === "string") return this.redact(value);
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((item) => {
        const next = this.#walk(item);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : value;
    }
    if (typeof value === "object" && value !== null) {
      let changed = false;
      const entries = Object.entries(value).map(([k, v]) => {
        const key = this.redact(k);
        const next = this.#walk(v);
        if (key !== k || next !== v) changed = true;
        return [key, next] as const;
      });
      // fromEntries defines own properties, so a `__proto__` key stays data.
      return changed ? Object.fromEntries(entries) : value;
    }
    return value;
  }
}
