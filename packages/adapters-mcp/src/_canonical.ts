// A quick, complete test for "this text may hold that secret", so the exact patterns (costly
// to compile) run only on texts that may match. Text and secrets are reduced the same way:
// percent-, \u- and short escapes are decoded, then white space, `+ / - _`, control
// characters and ASCII letter case are dropped. Any encoded or wrapped copy of a secret reduces to
// the reduced secret, except that an escape the text leaves open just before a copy may
// swallow up to its first five characters: the needle leaves those out (and the last one).

/** Characters every reduced text and needle leaves out (spaces, line breaks, `+` for a space, base64's two alphabets). */
const DROPPED = /[\s+/_\p{Cc}-]/gu;

const SHORT: Record<string, string> = { '"': '"', "'": "'", "/": "/" };

/** The reduced form of `text`. */
export function canonical(text: string): string {
  if (!text.includes("%") && !text.includes("\\")) return reduce(text);
  let out = "";
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === "%" && isHex(text, i + 1, 2)) {
      // A run of %XX bytes is one UTF-8 sequence; invalid bytes decode to U+FFFD.
      const bytes: number[] = [];
      while (text[i] === "%" && isHex(text, i + 1, 2)) {
        bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
        i += 3;
      }
      out += new TextDecoder().decode(new Uint8Array(bytes));
      continue;
    }
    if (c === "\\") {
      let j = i;
      while (text[j] === "\\") j++;
      const next = text[j];
      if (next === "u" && isHex(text, j + 1, 4)) {
        out += String.fromCharCode(Number.parseInt(text.slice(j + 1, j + 5), 16));
        i = j + 5;
        continue;
      }
      if (next !== undefined && SHORT[next] !== undefined) {
        out += SHORT[next];
        i = j + 1;
        continue;
      }
      if (next !== undefined && "nrtbf".includes(next)) {
        i = j + 1;
        continue;
      }
      out += "\\";
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return reduce(out);
}

/** Per character, so a part of a text reduces to the part of its reduction (no Final_Sigma rule). */
function reduce(text: string): string {
  return text.replace(DROPPED, "").replace(/[A-Z]+/g, (m) => m.toLowerCase());
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

function isHex(text: string, at: number, count: number): boolean {
  for (let k = 0; k < count; k++) {
    const ch = text.charCodeAt(at + k);
    const hex = (ch >= 48 && ch <= 57) || (ch >= 65 && ch <= 70) || (ch >= 97 && ch <= 102);
    if (!hex) return false;
  }
  return true;
}
