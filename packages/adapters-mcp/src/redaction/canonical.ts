// A quick, complete test for "this text may hold that secret", so the exact patterns (costly
// to compile) run only on texts that may match. Text and secrets are reduced the same way:
// percent-, \u- and short escapes are decoded, then white space, `+ / - _`, control
// characters and letter case are dropped. Any encoded or wrapped copy of a secret reduces to
// the reduced secret, except that an escape the text leaves open just before a copy may
// swallow up to its first five characters: the needle leaves those out (and the last one).

/** Characters every reduced text and needle leaves out (spaces, line breaks, `+` for a space, base64's two alphabets). */
const DROPPED = /[\s+/_\p{Cc}-]/gu;

const SHORT: Record<string, string> = { '"': '"', "'": "'", "/": "/" };

/** A run of percent-escapes, or a run of backslashes with what it escapes. */
const ESCAPE = /(?:%[0-9a-fA-F]{2})+|\\+(?:u[0-9a-fA-F]{4}|["'/nrtbf])?/g;
const UTF8 = new TextDecoder();

/** The reduced form of `text`. */
export function canonical(text: string): string {
  if (!text.includes("%") && !text.includes("\\")) return reduce(text);
  return reduce(text.replace(ESCAPE, decodeEscape));
}

/** One escape as the text it stands for (a line break or tab for nothing: they are dropped). */
function decodeEscape(m: string): string {
  if (m[0] === "%") {
    // One UTF-8 sequence; invalid bytes decode to U+FFFD.
    const bytes = new Uint8Array(m.length / 3);
    for (let i = 0; i < bytes.length; i++)
      bytes[i] = Number.parseInt(m.slice(3 * i + 1, 3 * i + 3), 16);
    return UTF8.decode(bytes);
  }
  let j = 0;
  while (m[j] === "\\") j++;
  const next = m[j];
  if (next === undefined) return "\\";
  if (next === "u") return String.fromCharCode(Number.parseInt(m.slice(j + 1), 16));
  return SHORT[next] ?? "";
}

/**
 * Per character, so a part of a text reduces to the part of its reduction: toLowerCase's one
 * context-dependent rule (a final sigma) is undone.
 */
function reduce(text: string): string {
  return text.replace(DROPPED, "").toLowerCase().replace(/ς/g, "σ");
}

/** Leading characters an open escape before a copy may swallow (`\` + `u0041` is five). */
const SWALLOWED = 5;
/** Needles shorter than this say too little: the exact pattern runs on every text. */
const MIN_NEEDLE = 3;

/**
 * The reduced middle of `form` that every copy of it reduces to, or null when `form` has no
 * reliable one (too short, or it holds `%` or `\`, whose own decoding a copy may change).
 */
export function needle(form: string): string | null {
  if (form.includes("%") || form.includes("\\")) return null;
  const middle = reduce([...form].slice(SWALLOWED, -1).join(""));
  return middle.length >= MIN_NEEDLE ? middle : null;
}
