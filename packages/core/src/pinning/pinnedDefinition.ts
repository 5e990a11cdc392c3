import type { McpPrompt, McpResource, McpResourceTemplate, McpTool } from "../events/events.js";
import { canonicalJson } from "./canonicalJson.js";
import type { PinKind } from "./pinEvents.js";
import { sha256Hex } from "./sha256.js";

/**
 * P1: the part of a tool that is pinned: everything the model or the host acts on — name,
 * title, description, input and output schemas, annotations, and any other field a server
 * adds — but `_meta`, of which only `ui` (D3's visibility, which the host acts on) is kept.
 * The rest of `_meta` is the server's bookkeeping, and the owner key is the host's own (R4).
 */
export function toolDefinition(tool: McpTool): Record<string, unknown> {
  const { _meta, ...rest } = tool;
  const ui = _meta?.ui;
  return ui === undefined ? rest : { ...rest, _meta: { ui } };
}

/** P1: a prompt's name, title, description and arguments (every field but `_meta`). */
export function promptDefinition(prompt: McpPrompt): Record<string, unknown> {
  const { _meta, ...rest } = prompt;
  return rest;
}

/** P1: the text a resource offers the model: its URI, name, title and description. */
export function resourceDefinition(resource: McpResource): Record<string, unknown> {
  return pick(resource, ["uri", "name", "title", "description"]);
}

/** P1: a resource template's URI template, name, title and description. */
export function templateDefinition(template: McpResourceTemplate): Record<string, unknown> {
  return pick(template, ["uriTemplate", "name", "title", "description"]);
}

/** P1: a server's `instructions` from its handshake. */
export function instructionsDefinition(text: string): Record<string, unknown> {
  return { instructions: text };
}

function pick(from: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}

/** P1: `sha256:<hex>` of a definition's canonical JSON. */
export function definitionDigest(definition: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(definition))}`;
}

const toolDigests = new WeakMap<McpTool, string>();

/** The digest of a tool's pinned part, memoised per tool object (registered tools are never mutated). */
export function toolDigest(tool: McpTool): string {
  let digest = toolDigests.get(tool);
  if (digest === undefined) {
    digest = definitionDigest(toolDefinition(tool));
    toolDigests.set(tool, digest);
  }
  return digest;
}

/** The digest of a definition without its name: equal for a tool listed again under a new name. */
export function namelessDigest(definition: unknown): string {
  if (typeof definition !== "object" || definition === null) return definitionDigest(definition);
  const {
    name: _name,
    uri: _uri,
    uriTemplate: _t,
    ...rest
  } = definition as Record<string, unknown>;
  return definitionDigest(rest);
}

/** The name an item is pinned under, per kind. */
export function itemName(kind: PinKind, definition: Record<string, unknown>): string {
  if (kind === "resource") return String(definition.uri ?? "");
  if (kind === "resource_template") return String(definition.uriTemplate ?? "");
  if (kind === "instructions") return "";
  return String(definition.name ?? "");
}
