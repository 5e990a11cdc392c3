import { type McpTool, McpToolSchema } from "@toolledger/core";
import { AdapterError } from "./adapterError.js";
import type { ExtensionConnection } from "./extensionConnection.js";

export interface FetchToolsOptions {
  /** Timeout of each tools/list request. */
  requestTimeoutMs: number;
  /** Stop (FETCH_GUARD) after this many pages: a server that never stops must not hang the host. */
  maxPages: number;
  signal?: AbortSignal;
}

export interface FetchedTools {
  tools: McpTool[];
  pages: number;
}

/**
 * R9: every tools/list page, in the server's order. A repeated cursor or more than
 * `maxPages` pages stops the fetch with FETCH_GUARD. A tool the core's lenient schema
 * still cannot hold (a field of the wrong type) is kept by name only, so the core reports
 * it as a rejected tool instead of the whole fetch failing; an entry without a string
 * name cannot be addressed at all and is dropped.
 */
export async function fetchTools(
  connection: ExtensionConnection,
  options: FetchToolsOptions,
): Promise<FetchedTools> {
  const tools: McpTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    if (pages >= options.maxPages) {
      throw new AdapterError(
        "FETCH_GUARD",
        `tools/list of extension ${JSON.stringify(connection.config.name)} did not end after ${options.maxPages} pages; stopped (raise maxPages if the server really has that many)`,
      );
    }
    const page = await connection.listToolsPage(cursor, {
      timeoutMs: options.requestTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    pages++;
    for (const raw of page.tools) {
      const tool = toMcpTool(raw);
      if (tool) tools.push(tool);
    }
    if (page.nextCursor === undefined) return { tools, pages };
    if (seen.has(page.nextCursor)) {
      throw new AdapterError(
        "FETCH_GUARD",
        `tools/list of extension ${JSON.stringify(connection.config.name)} repeated cursor ${JSON.stringify(page.nextCursor)} after page ${pages}; stopped to avoid an endless loop`,
      );
    }
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}

function toMcpTool(raw: unknown): McpTool | null {
  const parsed = McpToolSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const name =
    typeof raw === "object" && raw !== null ? (raw as { name?: unknown }).name : undefined;
  if (typeof name !== "string") return null;
  const issue = parsed.error.issues[0];
  return {
    name,
    description: `invalid tool definition (${issue ? `${issue.path.join(".")}: ${issue.message}` : "unreadable"})`,
  };
}
