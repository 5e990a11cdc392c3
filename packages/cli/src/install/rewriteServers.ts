import { isMap, type Node, parseDocument, stringify } from "yaml";
import { blankJsonComments } from "../config/blankJsonComments.js";

/** One server entry of a host's config, as written there. */
export interface ServerEntry {
  name: string;
  /** The parsed value. */
  value: unknown;
}

export interface ServersEdit {
  /** Entries to take out, by name. */
  remove: readonly string[];
  /** Entries to add at the end of the map. */
  add: readonly ServerEntry[];
}

/**
 * The server map of a host's config: `mcpServers` / `servers` (JSON, comments allowed) or
 * goose's `extensions` (YAML). Edits splice the text, so everything else in the file (other
 * keys, comments, formatting) stays byte for byte as it was.
 */
export type ServersFormat = { kind: "json"; key: "mcpServers" | "servers" } | { kind: "yaml" };

/** The entries of the server map, in file order (an absent or empty map: none). */
export function readServerEntries(text: string, format: ServersFormat): ServerEntry[] {
  const source = format.kind === "json" ? blankJsonComments(text) : text;
  const doc = parseDocument(source);
  if (doc.errors.length > 0) throw new Error(doc.errors[0]?.message ?? "unreadable");
  const map = doc.getIn([mapKey(format)], true);
  if (!isMap(map)) return [];
  return map.items.map((pair) => ({
    name: String((pair.key as { value?: unknown } | null)?.value ?? pair.key),
    value: (pair.value as Node | null)?.toJSON() ?? null,
  }));
}

/** The text with `edit` applied to its server map (created when absent). */
export function rewriteServers(text: string, format: ServersFormat, edit: ServersEdit): string {
  return format.kind === "json" ? rewriteJson(text, format.key, edit) : rewriteYaml(text, edit);
}

function mapKey(format: ServersFormat): string {
  return format.kind === "json" ? format.key : "extensions";
}

type Range = [number, number, number];

function rewriteJson(text: string, key: string, edit: ServersEdit): string {
  const source = blankJsonComments(text);
  const doc = parseDocument(source);
  if (doc.errors.length > 0) throw new Error(doc.errors[0]?.message ?? "unreadable JSON");
  const unit = indentUnit(source);
  const root = doc.contents;
  if (!isMap(root) || !root.range) throw new Error("the file is not a JSON object");
  const map = doc.getIn([key], true);
  const kept: string[] = [];
  if (isMap(map)) {
    for (const pair of map.items) {
      const name = String((pair.key as { value?: unknown }).value);
      if (edit.remove.includes(name)) continue;
      const range = (pair.value as { range?: Range }).range;
      if (!range) continue;
      kept.push(`${JSON.stringify(name)}: ${text.slice(range[0], range[1])}`);
    }
  }
  const inner = unit.repeat(2);
  const added = edit.add.map(
    (entry) =>
      `${JSON.stringify(entry.name)}: ${JSON.stringify(entry.value, null, unit).replaceAll("\n", `\n${inner}`)}`,
  );
  const entries = [...kept, ...added];
  const body = entries.length === 0 ? "{}" : `{\n${inner}${entries.join(`,\n${inner}`)}\n${unit}}`;
  if (isMap(map) && map.range) {
    return text.slice(0, map.range[0]) + body + text.slice(map.range[1]);
  }
  // No server map yet: the first key of the top-level object.
  const open = root.range[0] + 1;
  const comma = root.items.length > 0 ? "," : "\n";
  return `${text.slice(0, open)}\n${unit}${JSON.stringify(key)}: ${body}${comma}${text.slice(open)}`;
}

/** The file's indentation step: the indentation of its first indented line (default 2 spaces). */
function indentUnit(text: string): string {
  const match = /\n([ \t]+)\S/.exec(text);
  return match?.[1] ?? "  ";
}

function rewriteYaml(text: string, edit: ServersEdit): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new Error(doc.errors[0]?.message ?? "unreadable YAML");
  const root = doc.contents;
  const lines = text.split("\n");
  const lineOf = lineIndex(text);
  const pair = isMap(root)
    ? root.items.find((p) => (p.key as { value?: unknown } | null)?.value === "extensions")
    : undefined;
  const map = pair?.value;
  if (!pair || !isMap(map) || map.flow || map.items.length === 0) {
    // No block map to splice into (absent, `null`, `{}`, flow style): write the map anew.
    const existing = pair ? readServerEntries(text, { kind: "yaml" }) : [];
    const entries = [...existing.filter((e) => !edit.remove.includes(e.name)), ...edit.add];
    const block = ["extensions:", ...yamlLines(entries, "  ")];
    const keyRange = (pair?.key as { range?: Range } | undefined)?.range;
    if (!keyRange) {
      const body = text === "" || text.endsWith("\n") ? text : `${text}\n`;
      return `${body}${block.join("\n")}\n`;
    }
    const valueEnd = (pair?.value as { range?: Range } | null)?.range?.[1] ?? keyRange[1];
    const first = lineOf(keyRange[0]);
    const last = lineOf(Math.max(valueEnd - 1, keyRange[0]));
    return [...lines.slice(0, first), ...block, ...lines.slice(last + 1)].join("\n");
  }
  const firstKey = (map.items[0]!.key as { range: Range }).range;
  const indent = /^[ \t]*/.exec(lines[lineOf(firstKey[0])] ?? "")?.[0] ?? "  ";
  const drop = new Set<number>();
  let lastLine = 0;
  for (const item of map.items) {
    const keyRange = (item.key as { range?: Range }).range as Range;
    const valueRange = (item.value as { range?: Range } | null)?.range ?? keyRange;
    const first = lineOf(keyRange[0]);
    const last = lineOf(Math.max(valueRange[1] - 1, keyRange[1] - 1));
    lastLine = Math.max(lastLine, last);
    if (!edit.remove.includes(String((item.key as { value?: unknown }).value))) continue;
    for (let l = first; l <= last; l++) drop.add(l);
  }
  const added = yamlLines(edit.add, indent);
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (!drop.has(i)) out.push(line);
    if (i === lastLine) out.push(...added);
  });
  return out.join("\n");
}

/** Entries as goose writes them (block style, sequences not indented under their key), one string per line. */
function yamlLines(entries: readonly ServerEntry[], indent: string): string[] {
  if (entries.length === 0) return [];
  const object = Object.fromEntries(entries.map((e) => [e.name, e.value]));
  return stringify(object, { indentSeq: false, lineWidth: 0 })
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => (line === "" ? line : `${indent}${line}`));
}

function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
}
