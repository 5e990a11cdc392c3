import {
  type McpPrompt,
  McpPromptSchema,
  type McpResource,
  McpResourceSchema,
  type McpResourceTemplate,
  McpResourceTemplateSchema,
} from "@toolledger/core";
import type { z } from "zod";
import { AdapterError } from "../adapterError.js";
import type { ExtensionConnection } from "./extensionConnection.js";
import type { FetchToolsOptions } from "./fetchTools.js";

/** G1: every `prompts/list` page, in the server's order (entries without a name are dropped). */
export async function fetchPrompts(
  connection: ExtensionConnection,
  options: FetchToolsOptions,
): Promise<McpPrompt[]> {
  return fetchPaged(connection, "prompts/list", "prompts", McpPromptSchema, options);
}

/** G1: every `resources/list` and `resources/templates/list` page, in the server's order. */
export async function fetchResources(
  connection: ExtensionConnection,
  options: FetchToolsOptions,
): Promise<{ resources: McpResource[]; resourceTemplates: McpResourceTemplate[] }> {
  const [resources, resourceTemplates] = await Promise.all([
    fetchPaged(connection, "resources/list", "resources", McpResourceSchema, options),
    fetchPaged(
      connection,
      "resources/templates/list",
      "resourceTemplates",
      McpResourceTemplateSchema,
      options,
    ),
  ]);
  return { resources, resourceTemplates };
}

/** The R9 paging guard (repeated cursor, page limit) for any MCP list. */
async function fetchPaged<S extends z.ZodType>(
  connection: ExtensionConnection,
  method: string,
  field: string,
  schema: S,
  options: FetchToolsOptions,
): Promise<z.infer<S>[]> {
  const items: z.infer<S>[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; ; ) {
    if (pages >= options.maxPages) {
      throw new AdapterError(
        "FETCH_GUARD",
        `${method} of extension ${JSON.stringify(connection.config.name)} did not end after ${options.maxPages} pages; stopped`,
      );
    }
    const page = await connection.forward(method, cursor === undefined ? {} : { cursor }, {
      timeoutMs: options.requestTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    pages++;
    const list = page[field];
    if (!Array.isArray(list)) {
      throw new AdapterError(
        "PROTOCOL_ERROR",
        `${method} of extension ${JSON.stringify(connection.config.name)} answered without a "${field}" array`,
      );
    }
    for (const raw of list) {
      const parsed = schema.safeParse(raw);
      if (parsed.success) items.push(parsed.data);
    }
    const next = page.nextCursor;
    if (typeof next !== "string") return items;
    if (seen.has(next)) {
      throw new AdapterError(
        "FETCH_GUARD",
        `${method} of extension ${JSON.stringify(connection.config.name)} repeated cursor ${JSON.stringify(next)}; stopped to avoid an endless loop`,
      );
    }
    seen.add(next);
    cursor = next;
  }
}
