import type { PinFinding } from "../pinEvents.js";
import { rawIndex } from "./instructionPhrases.js";
import { excerpt } from "./invisibleCharacters.js";
import { type NormalizedText, normalizeForMatching } from "./normalizedText.js";

/** The other servers a definition could shadow: their keys, display names and tools. */
export interface ShadowingContext {
  /** The key of the server whose definition is checked. */
  own: string;
  others: readonly {
    key: string;
    name: string;
    tools: readonly { rawName: string; publicName: string }[];
  }[];
  /** The own server's raw tool names (a name both servers have is the own server's). */
  ownTools: ReadonlySet<string>;
}

/** Words that steer the model toward or away from tools. */
const STEER =
  "(?:instead\\sof|rather\\sthan|in\\splace\\sof|do\\snot\\suse|don't\\suse|never\\suse|do\\snot\\scall|don't\\scall|never\\scall|avoid(?:\\susing|\\scalling)?|stop\\susing|prefer\\sthis(?:\\stool)?\\sover|redirect(?:s|ed)?\\s(?:calls?\\s)?(?:to|from|for)|replaces?|overrides?|supersedes?)";

/** Steering away from a named server (the stronger verbs only: "replace" is ordinary prose). */
const AWAY =
  "(?:instead\\sof|rather\\sthan|in\\splace\\sof|do\\snot\\suse|don't\\suse|never\\suse|do\\snot\\scall|don't\\scall|never\\scall|avoid\\susing|avoid\\scalling|stop\\susing|prefer\\sthis(?:\\stool)?\\sover|redirect(?:s|ed)?\\s(?:calls?\\s)?(?:to|from|for))";

/** Steering about tools in general, without naming one. */
const GENERIC = new RegExp(
  `${STEER}\\s(?:any\\s|all\\s|the\\s|those\\s|these\\s)?(?:other|another|existing|similar|original|built-in|default)\\s(?:tools?|servers?|functions?|extensions?|mcp\\sservers?)\\b|\\b(?:do\\snot|don't|never)\\s(?:use|call|invoke)\\s(?:any\\s)?(?:tools?|functions?)\\s(?:other\\sthan|except|besides)\\s(?:this|these)\\b`,
);

/** An identifier-like name: worth matching unquoted (a plain word is matched only in quotes). */
function identifierLike(name: string): boolean {
  return name.length >= 4 && (/[_.\-\d]/.test(name) || /[a-z][A-Z]/.test(name));
}

/** A shadowing context prepared once for every text of a listing. */
export interface ShadowingIndex {
  byName: ReadonlyMap<string, { key: string; rawName: string; publicName: string }>;
  /** Other servers' keys: `<key>__<anything>` names one of their tools, listed yet or not. */
  keys: ReadonlySet<string>;
  quotedOnly: ReadonlySet<string>;
  away: readonly { key: string; pattern: RegExp }[];
}

const indexes = new WeakMap<ShadowingContext, ShadowingIndex>();

/** The lookups `findShadowing` needs, built once per context. */
export function shadowingIndex(context: ShadowingContext): ShadowingIndex {
  const cached = indexes.get(context);
  if (cached) return cached;
  const byName = new Map<string, { key: string; rawName: string; publicName: string }>();
  const quotedOnly = new Set<string>();
  const away: { key: string; pattern: RegExp }[] = [];
  const keys = new Set<string>();
  for (const other of context.others) {
    if (other.key === context.own) continue;
    keys.add(other.key);
    for (const t of other.tools) {
      byName.set(t.publicName, { key: other.key, ...t });
      byName.set(`${other.key}.${t.rawName}`, { key: other.key, ...t });
      if (context.ownTools.has(t.rawName)) continue;
      if (!byName.has(t.rawName)) byName.set(t.rawName, { key: other.key, ...t });
      if (!identifierLike(t.rawName)) quotedOnly.add(t.rawName);
    }
    const names = [...new Set([other.key, other.name.toLowerCase()])].filter((n) => n.length >= 3);
    if (names.length > 0)
      away.push({
        key: other.key,
        pattern: new RegExp(`${AWAY}[^.!?\\n]{0,60}\\b(?:${names.map(escapeRegExp).join("|")})\\b`),
      });
  }
  const index = { byName, keys, quotedOnly, away };
  indexes.set(context, index);
  return index;
}

/**
 * P3, cross-server shadowing: a definition that names another server's tool (by its public
 * name, its `<server>.<tool>` form, or its raw name — unquoted when it looks like an
 * identifier, in quotes or backticks otherwise), that steers the model away from or toward
 * tools in general, or that names another server next to steering words.
 */
export function findShadowing(
  text: string,
  field: string,
  context: ShadowingContext,
  normalized: NormalizedText = normalizeForMatching(text),
): PinFinding[] {
  const { byName, keys, quotedOnly, away } = shadowingIndex(context);
  const findings: PinFinding[] = [];
  const named = new Set<string>();
  if (keys.size > 0) {
    for (const m of text.matchAll(/[\p{L}\p{N}_.-]+/gu)) {
      const token = m[0].replace(/[.-]+$/, "");
      const split = token.indexOf("__");
      const prefix = split > 0 ? token.slice(0, split).toLowerCase() : "";
      const hit =
        byName.get(token) ??
        (keys.has(prefix) && split + 2 < token.length
          ? { key: prefix, rawName: token.slice(split + 2), publicName: token }
          : undefined);
      if (!hit || named.has(hit.publicName)) continue;
      if (quotedOnly.has(token) && !quoted(text, m.index, token.length)) continue;
      named.add(hit.publicName);
      findings.push({
        check: "shadowing",
        field,
        index: m.index,
        excerpt: excerpt(text, m.index, token.length),
        detail: `names ${hit.publicName}, a tool of another server (${hit.key})`,
      });
    }
  }
  const generic = GENERIC.exec(normalized.text);
  if (generic) {
    const index = rawIndex(normalized, generic.index);
    findings.push({
      check: "shadowing",
      field,
      index,
      excerpt: excerpt(text, index, generic[0].length),
      detail: `steers the model between this and other tools: ${JSON.stringify(generic[0])}`,
    });
  }
  for (const { key, pattern } of away) {
    const steer = pattern.exec(normalized.text);
    if (!steer) continue;
    const index = rawIndex(normalized, steer.index);
    findings.push({
      check: "shadowing",
      field,
      index,
      excerpt: excerpt(text, index, steer[0].length),
      detail: `steers the model away from another server (${key}): ${JSON.stringify(steer[0])}`,
    });
  }
  return findings;
}

function quoted(text: string, index: number, length: number): boolean {
  const before = text[index - 1];
  const after = text[index + length];
  return (
    (before === "`" && after === "`") ||
    (before === '"' && after === '"') ||
    (before === "'" && after === "'")
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
