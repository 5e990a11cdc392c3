/**
 * S1: the words of a tool's text and of a query. Identifiers are split where people would
 * split them (`getFileContents`, `create_or_update_file`, `API-post-page`, `gh2md` stays),
 * everything is lowercased, and words that say nothing about a task are dropped.
 */
export function words(text: string): string[] {
  const out: string[] = [];
  // Letters and digits; an upper-case letter after a lower-case one starts a word
  // (camelCase), as does the last upper-case letter of a run followed by lower case (HTTPServer).
  const re = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[\u0080-\uffff]+/g;
  for (const part of text.split(/[^A-Za-z0-9\u0080-\uffff]+/)) {
    if (part === "") continue;
    for (const m of part.matchAll(re)) {
      const w = m[0].toLowerCase();
      if (w.length > 0 && !STOP_WORDS.has(w)) out.push(w);
    }
  }
  return out;
}

/** The baseline's words (bench: plain BM25): lowercase runs of letters and digits, nothing dropped. */
export function plainWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9\u0080-\uffff]+/)
    .filter((w) => w !== "");
}

/** English function words and politeness: they appear in every description and every request. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "the",
  "to",
  "of",
  "for",
  "in",
  "on",
  "at",
  "by",
  "with",
  "from",
  "into",
  "onto",
  "and",
  "or",
  "but",
  "is",
  "are",
  "was",
  "were",
  "be",
  "been",
  "being",
  "it",
  "its",
  "this",
  "that",
  "these",
  "those",
  "as",
  "if",
  "then",
  "than",
  "so",
  "such",
  "can",
  "could",
  "should",
  "would",
  "will",
  "shall",
  "may",
  "might",
  "must",
  "do",
  "does",
  "did",
  "i",
  "me",
  "my",
  "we",
  "our",
  "us",
  "you",
  "your",
  "he",
  "she",
  "they",
  "them",
  "their",
  "his",
  "her",
  "please",
  "want",
  "wanna",
  "need",
  "like",
  "let",
  "lets",
  "some",
  "any",
  "there",
  "here",
  "what",
  "which",
  "who",
  "whom",
  "how",
  "when",
  "where",
  "why",
  "just",
  "also",
  "very",
  "up",
  "out",
  "about",
  "over",
  "via",
  "using",
  "use",
  "used",
  "e",
  "g",
  "eg",
  "ie",
  "etc",
  "s",
  "t",
]);

/**
 * A light English stemmer: plurals, -ing, -ed, -ion and a final -e go, so `creating`,
 * `created`, `creation` and `create` meet at `creat`, `repositories` at `repositori`…`y`.
 * Deterministic and small on purpose: its job is to join forms of one word, not to be Porter.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /[0-9]/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (/(?:ch|sh|x|z|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(?:ss|us|is|os)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ied") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("ed") && w.length > 4) w = undouble(w.slice(0, -2));
  else if (w.endsWith("ion") && w.length > 6) w = w.slice(0, -3);
  if (w.endsWith("e") && w.length > 4) w = w.slice(0, -1);
  if (w.endsWith("y") && w.length > 4) w = `${w.slice(0, -1)}i`;
  return w;
}

function undouble(w: string): string {
  const n = w.length;
  return n > 3 && w[n - 1] === w[n - 2] && !/[lsz]/.test(w[n - 1]!) ? w.slice(0, -1) : w;
}
