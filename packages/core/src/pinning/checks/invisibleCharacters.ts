import type { PinFinding } from "../pinEvents.js";

/**
 * P3: characters a reader does not see but a model reads: zero-width and other invisible
 * format characters, bidirectional controls (which reorder what is displayed), and Unicode
 * tag characters (U+E0000–U+E007F, which spell ASCII invisibly). A zero-width joiner between
 * two pictographs (an emoji sequence) and the emoji variation selectors U+FE0E/U+FE0F are
 * ordinary text and not reported.
 */
export function isInvisible(cp: number): boolean {
  return (
    cp === 0x00ad ||
    cp === 0x034f ||
    cp === 0x061c ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x17b4 ||
    cp === 0x17b5 ||
    (cp >= 0x180b && cp <= 0x180e) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    (cp >= 0x2066 && cp <= 0x206f) ||
    cp === 0x3164 ||
    (cp >= 0xfe00 && cp <= 0xfe0d) ||
    cp === 0xfeff ||
    cp === 0xffa0 ||
    (cp >= 0xfff9 && cp <= 0xfffb) ||
    (cp >= 0x1bca0 && cp <= 0x1bca3) ||
    (cp >= 0x1d173 && cp <= 0x1d17a) ||
    (cp >= 0xe0000 && cp <= 0xe007f) ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  );
}

function isTag(cp: number): boolean {
  return cp >= 0xe0000 && cp <= 0xe007f;
}

function isBidi(cp: number): boolean {
  return (
    cp === 0x061c ||
    cp === 0x200e ||
    cp === 0x200f ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069)
  );
}

const PICTOGRAPH = /\p{Extended_Pictographic}/u;

/** `<U+200B>`: how an invisible character is shown in an excerpt. */
export function showCodePoint(cp: number): string {
  return `<U+${cp.toString(16).toUpperCase().padStart(4, "0")}>`;
}

/** The text with every invisible character made visible as `<U+XXXX>`. */
export function revealInvisible(text: string): string {
  let out = "";
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    out += isInvisible(cp) ? showCodePoint(cp) : ch;
  }
  return out;
}

interface Hit {
  index: number;
  cp: number;
}

/**
 * P3: every invisible character of `text`, as at most three findings (tag characters,
 * bidirectional controls, other invisible characters), each decoded where it hides text.
 */
export function findInvisibleCharacters(text: string, field: string): PinFinding[] {
  const hits: Hit[] = [];
  let i = 0;
  let previous = "";
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (
      isInvisible(cp) &&
      !(
        cp === 0x200d &&
        PICTOGRAPH.test(previous) &&
        PICTOGRAPH.test(nextChar(text, i + ch.length))
      )
    )
      hits.push({ index: i, cp });
    previous = ch;
    i += ch.length;
  }
  if (hits.length === 0) return [];
  const findings: PinFinding[] = [];
  const tags = hits.filter((h) => isTag(h.cp));
  const bidi = hits.filter((h) => isBidi(h.cp));
  const other = hits.filter((h) => !isTag(h.cp) && !isBidi(h.cp));
  if (tags.length > 0) {
    const hidden = decodeTags(tags);
    findings.push({
      check: "invisible",
      field,
      index: tags[0]!.index,
      excerpt: excerpt(text, tags[0]!.index),
      ...(hidden === "" ? {} : { decoded: hidden }),
      detail: `${tags.length} Unicode tag character(s) (U+E0000–U+E007F), invisible to a reader${hidden === "" ? "" : `, spell ${JSON.stringify(hidden)}`}`,
    });
  }
  if (bidi.length > 0) {
    findings.push({
      check: "invisible",
      field,
      index: bidi[0]!.index,
      excerpt: excerpt(text, bidi[0]!.index),
      decoded: revealInvisible(text),
      detail: `${bidi.length} bidirectional control character(s) (${codes(bidi)}) change the order the text displays in; the model reads it in stored order`,
    });
  }
  if (other.length > 0) {
    const binary = decodeZeroWidthBinary(text);
    const stripped = stripInvisible(text);
    findings.push({
      check: "invisible",
      field,
      index: other[0]!.index,
      excerpt: excerpt(text, other[0]!.index),
      decoded: binary ?? stripped,
      detail: `${other.length} invisible character(s) (${codes(other)})${binary ? `, encoding ${JSON.stringify(binary)} in binary` : ""}`,
    });
  }
  return findings;
}

function nextChar(text: string, at: number): string {
  const cp = text.codePointAt(at);
  return cp === undefined ? "" : String.fromCodePoint(cp);
}

/** Tag characters spell ASCII: U+E0020–U+E007E are the printable characters, U+E007F ends a tag. */
function decodeTags(tags: readonly Hit[]): string {
  let out = "";
  for (const t of tags) {
    const c = t.cp - 0xe0000;
    if (c >= 0x20 && c <= 0x7e) out += String.fromCharCode(c);
  }
  return out;
}

/** The text without its invisible characters: what a filter that drops them would read. */
export function stripInvisible(text: string): string {
  let out = "";
  for (const ch of text) if (!isInvisible(ch.codePointAt(0)!)) out += ch;
  return out;
}

/**
 * Runs of two zero-width characters spell bits in published smuggling schemes
 * (U+200B/U+200C, U+200C/U+200D, U+200B/U+200D as 0/1, eight to a character). The first
 * pairing that reads as mostly printable ASCII is the hidden text; null when none does.
 */
function decodeZeroWidthBinary(text: string): string | null {
  // A joiner here is a bit, not part of an emoji sequence.
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: the zero-width characters are matched one by one on purpose
  const runs = text.match(/[\u200b\u200c\u200d\u2060\ufeff]{8,}/g) ?? [];
  const bits = runs.join("");
  if (bits.length < 16) return null;
  const pairs: [string, string][] = [
    ["\u200b", "\u200c"],
    ["\u200c", "\u200d"],
    ["\u200b", "\u200d"],
    ["\u200c", "\u200b"],
    ["\u200d", "\u200c"],
  ];
  for (const [zero, one] of pairs) {
    const digits = [...bits].filter((c) => c === zero || c === one);
    if (digits.length < bits.length * 0.9 || digits.length < 16) continue;
    let out = "";
    for (let i = 0; i + 8 <= digits.length; i += 8) {
      const byte = Number.parseInt(
        digits
          .slice(i, i + 8)
          .map((c) => (c === one ? "1" : "0"))
          .join(""),
        2,
      );
      out += String.fromCharCode(byte);
    }
    const printable = [...out].filter((c) => c >= " " && c <= "~").length;
    if (out.length >= 2 && printable >= out.length * 0.9) return out;
  }
  return null;
}

function codes(hits: readonly Hit[]): string {
  const distinct = [...new Set(hits.map((h) => h.cp))].slice(0, 4);
  return `${distinct.map((cp) => showCodePoint(cp).slice(1, -1)).join(", ")}${new Set(hits.map((h) => h.cp)).size > 4 ? ", …" : ""}`;
}

/** Up to 40 characters either side of `index`, invisible characters shown. */
export function excerpt(text: string, index: number, length = 0): string {
  const start = Math.max(0, index - 40);
  const end = Math.min(text.length, index + Math.max(length, 1) + 40);
  return `${start > 0 ? "…" : ""}${revealInvisible(text.slice(start, end))}${end < text.length ? "…" : ""}`;
}
