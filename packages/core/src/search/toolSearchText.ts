import type { RegisteredTool } from "../fold/state.js";

/** S1: the fields a search reads, in the order a `/regex/` result is ranked by. */
export const SEARCH_FIELDS = [
  "name",
  "title",
  "description",
  "argNames",
  "argDescriptions",
] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** Caps what one tool contributes, so a server cannot make the index (or a regex scan) huge. */
const FIELD_LIMIT = 4_000;
const ARG_LIMIT = 64;

/**
 * S1: a tool's searchable text per field: the name the model sees (R14), title, description,
 * and its input schema's argument names and descriptions (top level, and one level into
 * objects and arrays of objects, where real servers put `edits[].oldText`).
 */
export function toolSearchText(tool: RegisteredTool): Record<SearchField, string> {
  const raw = tool.raw;
  const names: string[] = [];
  const descriptions: string[] = [];
  collectArguments(raw.inputSchema, names, descriptions, 0);
  const title =
    typeof raw.title === "string"
      ? raw.title
      : typeof (raw.annotations as { title?: unknown } | undefined)?.title === "string"
        ? (raw.annotations as { title: string }).title
        : "";
  return {
    name: tool.wireName,
    title: cap(title),
    description: cap(typeof raw.description === "string" ? raw.description : ""),
    argNames: cap(names.join(" ")),
    argDescriptions: cap(descriptions.join("\n")),
  };
}

function collectArguments(
  schema: unknown,
  names: string[],
  descriptions: string[],
  depth: number,
): void {
  if (typeof schema !== "object" || schema === null || depth > 1) return;
  const properties = (schema as { properties?: unknown }).properties;
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return;
  for (const [name, value] of Object.entries(properties)) {
    if (names.length >= ARG_LIMIT) return;
    names.push(name);
    if (typeof value !== "object" || value === null) continue;
    const d = (value as { description?: unknown }).description;
    if (typeof d === "string") descriptions.push(d);
    collectArguments(value, names, descriptions, depth + 1);
    collectArguments((value as { items?: unknown }).items, names, descriptions, depth + 1);
  }
}

function cap(text: string): string {
  return text.length > FIELD_LIMIT ? text.slice(0, FIELD_LIMIT) : text;
}

/**
 * What a search result says about a tool: the first sentence or line of its description
 * (else its title), at most 160 characters.
 */
export function oneLineDescription(tool: RegisteredTool): string {
  const raw = tool.raw;
  const text = (
    typeof raw.description === "string" && raw.description.trim() !== ""
      ? raw.description
      : typeof raw.title === "string"
        ? raw.title
        : ""
  ).trim();
  const line = text.split(/\r?\n/, 1)[0]!.trim();
  const sentence = /^(.*?[.!?])(\s|$)/.exec(line)?.[1] ?? line;
  const out = sentence.replace(/\s+/g, " ");
  return out.length > 160 ? `${out.slice(0, 157)}...` : out;
}
