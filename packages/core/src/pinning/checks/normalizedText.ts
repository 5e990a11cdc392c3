import { isInvisible } from "./invisibleCharacters.js";

/** A text normalised for matching, with the raw index each of its code units came from. */
export interface NormalizedText {
  text: string;
  /** `raw[i]`: where `text[i]` came from in the raw text. */
  raw: number[];
}

/**
 * P3: NFKC (so full-width, ligature and other compatibility forms read as plain letters),
 * invisible characters dropped, typographic apostrophes as `'`, lowercased, white space
 * collapsed to one space. Done one code point at a time, so every match maps back to where
 * it is in the raw text; ASCII (almost every character of a definition) takes a short path.
 */
export function normalizeForMatching(input: string): NormalizedText {
  const parts: string[] = [];
  const raw: number[] = [];
  let space = false;
  const push = (c: string, from: number, blank: boolean): void => {
    if (blank) {
      if (!space) {
        parts.push(" ");
        raw.push(from);
      }
      space = true;
      return;
    }
    space = false;
    parts.push(c);
    for (let k = 0; k < c.length; k++) raw.push(from);
  };
  for (let i = 0; i < input.length; ) {
    const code = input.charCodeAt(i);
    if (code < 0x80) {
      const blank = code === 32 || (code >= 9 && code <= 13);
      push(code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : input[i]!, i, blank);
      i++;
      continue;
    }
    const cp = input.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    if (!isInvisible(cp)) {
      const mapped = String.fromCodePoint(cp)
        .normalize("NFKC")
        .toLowerCase()
        .replace(/[\u2018\u2019\u02bc]/g, "'");
      for (const c of mapped) push(c, i, /\s/u.test(c));
    }
    i += width;
  }
  return { text: parts.join(""), raw };
}
