import type { McpTool } from "@toolledger/core";

/**
 * The baseline of benchmark 13's retrieval rows: plain BM25 (k1 1.2, b 0.75) over the same
 * text the search reads (name, title, description, argument names and descriptions) as one
 * field: lowercased, split on anything not a letter or digit; no stemming, no synonyms, no
 * field weights, no camelCase splitting, no stop words.
 */
export class PlainBm25 {
  readonly #docs: { name: string; tf: Map<string, number>; length: number }[] = [];
  readonly #df = new Map<string, number>();
  #avg = 0;

  constructor(tools: readonly { name: string; tool: McpTool }[]) {
    let total = 0;
    for (const { name, tool } of tools) {
      const terms = tokens(toolText(name, tool));
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) this.#df.set(t, (this.#df.get(t) ?? 0) + 1);
      this.#docs.push({ name, tf, length: terms.length });
      total += terms.length;
    }
    this.#avg = this.#docs.length === 0 ? 0 : total / this.#docs.length;
  }

  /** The `limit` best names, ties by name. */
  search(query: string, limit: number): string[] {
    const n = this.#docs.length;
    const terms = [...new Set(tokens(query))];
    const scored: { name: string; score: number }[] = [];
    for (const d of this.#docs) {
      let score = 0;
      for (const t of terms) {
        const f = d.tf.get(t);
        if (!f) continue;
        const df = this.#df.get(t)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.length) / this.#avg));
      }
      if (score > 0) scored.push({ name: d.name, score });
    }
    scored.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return scored.slice(0, limit).map((s) => s.name);
  }
}

function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== "");
}

function toolText(name: string, tool: McpTool): string {
  const parts = [name, typeof tool.title === "string" ? tool.title : "", tool.description ?? ""];
  const visit = (schema: unknown, depth: number) => {
    if (typeof schema !== "object" || schema === null || depth > 1) return;
    const props = (schema as { properties?: unknown }).properties;
    if (typeof props !== "object" || props === null) return;
    for (const [k, v] of Object.entries(props)) {
      parts.push(k);
      const d = (v as { description?: unknown } | null)?.description;
      if (typeof d === "string") parts.push(d);
      visit(v, depth + 1);
      visit((v as { items?: unknown } | null)?.items, depth + 1);
    }
  };
  visit(tool.inputSchema, 0);
  return parts.join(" ");
}
