// Regular expressions that find one secret in the forms servers and logs carry it in. Each
// character may appear literally or encoded independently (percent-encoding of its UTF-8
// bytes in any hex case, `\uXXXX` and short escapes under any level of JSON/JS escaping, `+`
// for a space), and a line break (real or escaped) may split the secret anywhere. The base64
// (standard or URL-safe, percent-encoded or not) and hex (any case) forms of the secret are
// patterns of their own.

import { needle } from "./canonical.js";

/** Backslashes of up to three levels of nested escaping (1, 3, 7) and then some. */
const ESC = "\\\\{1,8}";
/** An optional line break between two characters of a secret: real, or escaped in a string. */
const BREAK = `(?:(?:\\r?\\n|(?:${ESC}r)?${ESC}n)[ \\t]{0,8})?`;
/** The longest text BREAK matches. */
const BREAK_MAX = 2 * (8 + 1) + 8;
/** The longest text one character's alternatives match (a surrogate pair as two `\uXXXX`). */
const CHAR_MAX = 2 * (8 + 5);

export interface SecretPattern {
  /** The reduced middle every copy reduces to (see `canonical`), or null: test every text. */
  needle: string | null;
  /** The secret anywhere, with the `g` flag (compiled on first use). */
  whole: () => RegExp;
  /** An upper bound of the length of any match of `whole`. */
  maxLength: number;
}

/** The patterns of one secret: the value itself, its base64 (three alignments) and hex. */
export function secretPatterns(secret: string, minLength: number): SecretPattern[] {
  const bytes = new TextEncoder().encode(secret);
  const forms: { chars: string[]; form: Form }[] = [{ chars: [...secret], form: "text" }];
  for (const core of base64Cores(bytes)) {
    if (core.length >= minLength) forms.push({ chars: [...core], form: "base64" });
  }
  forms.push({ chars: [...hex(bytes)], form: "hex" });
  return forms.map(({ chars, form }) => {
    // Compiling takes milliseconds per secret: only texts that may hold one pay for it.
    let whole: RegExp | undefined;
    return {
      needle: needle(chars.join("")),
      whole: () => {
        whole ??= new RegExp(chars.map((c) => charPattern(c, form)).join(BREAK), "g");
        return whole;
      },
      maxLength: chars.length * CHAR_MAX + (chars.length - 1) * BREAK_MAX,
    };
  });
}

type Form = "text" | "base64" | "hex";

const SHORT_ESCAPES: Record<string, string> = {
  '"': '"',
  "'": "'",
  "/": "/",
  "\n": "n",
  "\r": "r",
  "\t": "t",
  "\b": "b",
  "\f": "f",
};

function charPattern(ch: string, form: Form): string {
  if (form === "hex") return /[a-f]/.test(ch) ? `[${ch}${ch.toUpperCase()}]` : ch;
  // base64 text travels in URLs (`+` and `/` percent-encoded) and in its URL-safe alphabet.
  if (form === "base64") {
    if (ch === "+") return "(?:\\+|-|%2[bB])";
    if (ch === "/") return "(?:\\/|_|%2[fF])";
    return ch;
  }
  const alternatives = new Set<string>();
  alternatives.add(ch === "\\" ? ESC : escapeRegExp(ch));
  alternatives.add([...new TextEncoder().encode(ch)].map((b) => `%${hexDigits(b, 2)}`).join(""));
  const units = ch.length === 2 ? [ch.charCodeAt(0), ch.charCodeAt(1)] : [ch.charCodeAt(0)];
  alternatives.add(units.map((u) => `${ESC}u${hexDigits(u, 4)}`).join(""));
  const short = SHORT_ESCAPES[ch];
  if (short !== undefined) alternatives.add(`${ESC}${escapeRegExp(short)}`);
  if (ch === " ") alternatives.add("\\+");
  // Encoded forms first: `%` or `\` in a secret is also the start of its own encoding.
  return `(?:${[...alternatives].reverse().join("|")})`;
}

/** Hex digits of `n`, each letter matching either case. */
function hexDigits(n: number, width: number): string {
  return [...n.toString(16).padStart(width, "0")]
    .map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d))
    .join("");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * The base64 characters fully determined by the secret's bytes when 0, 1 or 2 bytes precede
 * it, so the secret is found inside a longer base64 text (`user:password` in Basic auth).
 */
function base64Cores(bytes: Uint8Array): string[] {
  return [0, 1, 2].map((a) => {
    const padded = new Uint8Array(a + bytes.length);
    padded.set(bytes, a);
    let bits = "";
    for (const b of padded) bits += b.toString(2).padStart(8, "0");
    let out = "";
    const first = Math.ceil((8 * a) / 6);
    const last = Math.floor(bits.length / 6);
    for (let j = first; j < last; j++)
      out += BASE64[Number.parseInt(bits.slice(6 * j, 6 * j + 6), 2)];
    return out;
  });
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}
