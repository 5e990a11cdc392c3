import { revealInvisible } from "@toolledger/core";

/**
 * Text as a reviewer must see it: a run of Unicode tag characters as the ASCII it spells,
 * `⟦hidden: "…"⟧`, and every other invisible character as `<U+200B>` (P3: what a terminal
 * would not show is exactly what the model reads).
 */
export function revealHidden(text: string): string {
  let out = "";
  let tags = "";
  const flush = () => {
    if (tags !== "") out += `⟦hidden: ${JSON.stringify(tags)}⟧`;
    tags = "";
  };
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xe0000 && cp <= 0xe007f) {
      if (cp >= 0xe0020 && cp <= 0xe007e) tags += String.fromCharCode(cp - 0xe0000);
      continue;
    }
    flush();
    out += revealInvisible(ch);
  }
  flush();
  return out;
}
