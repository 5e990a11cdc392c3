/**
 * R1: an extension's key from its display name, character by character: ASCII letters,
 * digits, `_` and `-` are kept; Unicode White_Space is dropped; everything else becomes `_`;
 * the result is lowercased last. Nothing is trimmed, collapsed or shortened.
 */
export function nameToKey(name: string): string {
  // Most names reaching the reducer are keys already (events name extensions by key).
  if (KEY.test(name)) return name;
  let out = "";
  for (const ch of name) {
    const c = ch.codePointAt(0)!;
    if (
      (c >= 0x30 && c <= 0x39) ||
      (c >= 0x41 && c <= 0x5a) ||
      (c >= 0x61 && c <= 0x7a) ||
      c === 0x5f ||
      c === 0x2d
    ) {
      out += ch;
    } else if (!isUnicodeWhiteSpace(c)) {
      out += "_";
    }
  }
  return out.toLowerCase();
}

const KEY = /^[a-z0-9_-]*$/;

/** The Unicode White_Space property (not JavaScript's `\s`, which differs from it). */
export function isUnicodeWhiteSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}
