// G1: the prompts and resources family: what servers list besides tools, and its invalidations.
import { z } from "zod";
import { EVENT_SCHEMA_VERSION } from "../events/eventSchemaVersion.js";
import { origin } from "../events/origin.js";

const v = z.literal(EVENT_SCHEMA_VERSION);
/** Optional ISO-8601 time supplied by whoever appends the event (E2: never made by the reducer). */
const at = z.string().optional();

/** A prompt as an MCP server sent it (G1); only `name` is required, the rest is kept as sent. */
export const McpPromptSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(z.unknown()).optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});
export type McpPrompt = z.infer<typeof McpPromptSchema>;

/** A resource as an MCP server listed it (G1: its URI is kept). */
export const McpResourceSchema = z.looseObject({ uri: z.string(), name: z.string().optional() });
export type McpResource = z.infer<typeof McpResourceSchema>;

/** A resource template (RFC 6570 `uriTemplate`) as an MCP server listed it. */
export const McpResourceTemplateSchema = z.looseObject({
  uriTemplate: z.string(),
  name: z.string().optional(),
});
export type McpResourceTemplate = z.infer<typeof McpResourceTemplateSchema>;

/**
 * V3: a definition the host did not record because its JSON (UTF-8 bytes) is over the host's
 * cap on one definition (`limit`): not served, reported with the listing instead. `name` is
 * the tool's or prompt's raw name, the resource's URI or the template's URI template; `kind`
 * tells resources and templates apart in a resource listing (absent: a tool or a prompt).
 */
export const OversizedDefinitionSchema = z.object({
  name: z.string(),
  kind: z.enum(["resource", "resource_template"]).optional(),
  bytes: z.number().int().nonnegative(),
  limit: z.number().int().positive(),
});
export type OversizedDefinition = z.infer<typeof OversizedDefinitionSchema>;

/** An extension said `notifications/prompts/list_changed` (G1): its prompt list is stale. */
export const PromptsInvalidatedSchema = z.object({
  type: z.literal("PromptsInvalidated"),
  v,
  at,
  extension: z.string(),
  origin,
});
export type PromptsInvalidated = z.infer<typeof PromptsInvalidatedSchema>;

/**
 * Every page of `prompts/list`. `startedAtVersion` is the extension's prompt-list version when
 * the fetch started: one that raced a `PromptsInvalidated` is stale and changes nothing.
 * With `error` the fetch failed and the extension offers no prompts until the next one.
 */
export const PromptsFetchedSchema = z.object({
  type: z.literal("PromptsFetched"),
  v,
  at,
  extension: z.string(),
  startedAtVersion: z.number().int().nonnegative(),
  prompts: z.array(McpPromptSchema),
  error: z.string().optional(),
  /** V3: prompts listed but over the host's cap on one definition (absent: none). */
  oversized: z.array(OversizedDefinitionSchema).optional(),
  origin,
});
export type PromptsFetched = z.infer<typeof PromptsFetchedSchema>;

/** An extension said `notifications/resources/list_changed` (G1). */
export const ResourcesInvalidatedSchema = z.object({
  type: z.literal("ResourcesInvalidated"),
  v,
  at,
  extension: z.string(),
  origin,
});
export type ResourcesInvalidated = z.infer<typeof ResourcesInvalidatedSchema>;

/** Every page of `resources/list` and `resources/templates/list`, versioned like prompts. */
export const ResourcesFetchedSchema = z.object({
  type: z.literal("ResourcesFetched"),
  v,
  at,
  extension: z.string(),
  startedAtVersion: z.number().int().nonnegative(),
  resources: z.array(McpResourceSchema),
  resourceTemplates: z.array(McpResourceTemplateSchema).default([]),
  error: z.string().optional(),
  /** V3: resources and templates listed but over the host's cap on one definition (absent: none). */
  oversized: z.array(OversizedDefinitionSchema).optional(),
  origin,
});
export type ResourcesFetched = z.infer<typeof ResourcesFetchedSchema>;
