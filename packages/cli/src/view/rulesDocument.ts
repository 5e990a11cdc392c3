import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RULE_SUMMARIES, type ViewRule } from "./ruleCatalog.js";

const RULE_ID = /^([RDECGAPSV]\d{1,2})\b/;

/**
 * The project's rules document: inside the installed package (`docs/rules.md` beside `dist/`),
 * else at the root of this source checkout (src/view and dist/view alike).
 */
export function defaultRulesDocument(): string | undefined {
  return ["../../docs/rules.md", "../../../../docs/rules.md"]
    .map((path) => fileURLToPath(new URL(path, import.meta.url)))
    .find((path) => existsSync(path));
}

/** GitHub's heading anchor: rendered text lowercased, punctuation dropped, spaces as hyphens. */
export function githubAnchor(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[*`]/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "").replace(/\s/g, "-");
}

/**
 * Where each rule is written in a Markdown rules document: a heading that starts with the
 * rule id links to that heading; a list item that starts with it (`- **R9 …**`) links to its
 * section; an explicit `<a id>` on the line wins.
 */
export function ruleAnchors(markdown: string): Map<string, string> {
  const anchors = new Map<string, string>();
  const seen = new Map<string, number>();
  let section: string | undefined;
  let fence = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    const explicit = /<a\s+(?:id|name)="([^"]+)"/.exec(line)?.[1];
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    let text: string | undefined;
    if (heading !== undefined) {
      const base = githubAnchor(heading);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      section = n === 0 ? base : `${base}-${n}`;
      text = heading;
    } else {
      text = /^\s*[-*+]\s+(.*)$/.exec(line)?.[1];
    }
    if (text === undefined) continue;
    const id = RULE_ID.exec(
      text
        .replace(/<[^>]+>/g, "")
        .replace(/^[\s*`_]+/, "")
        .trim(),
    )?.[1];
    if (id === undefined || anchors.has(id)) continue;
    const anchor = explicit ?? section;
    if (anchor !== undefined) anchors.set(id, anchor);
  }
  return anchors;
}

/** Every rule the view may cite, with links into `document` where it names them. */
export function viewRules(document: string | undefined): Record<string, ViewRule> {
  const anchors =
    document === undefined
      ? new Map<string, string>()
      : ruleAnchors(readFileSync(document, "utf8"));
  const href = document === undefined ? undefined : pathToFileURL(document).href;
  const out: Record<string, ViewRule> = {};
  for (const [id, r] of Object.entries(RULE_SUMMARIES)) {
    const anchor = anchors.get(id);
    out[id] = {
      id,
      ...r,
      ...(href === undefined ? {} : { href: anchor === undefined ? href : `${href}#${anchor}` }),
    };
  }
  return out;
}
