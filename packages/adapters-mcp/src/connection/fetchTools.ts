import { type McpTool, McpToolSchema } from "@toolledger/core";
import { asAdapterError } from "../adapterError.js";
import type { ExtensionConnection } from "./extensionConnection.js";

export interface FetchToolsOptions {
  /** Timeout of each tools/list request. */
  requestTimeoutMs: number;
  /** Stop after this many pages: a server that never stops must not hang the host. */
  maxPages: number;
  signal?: AbortSignal;
}

export interface FetchedTools {
  tools: McpTool[];
  pages: number;
  /** R9: false when a later page failed or the pagination guard stopped the listing. */
  complete: boolean;
  /** Why the listing is partial (a secret-free message), when `complete` is false. */
  reason?: string;
}

/**
 * R9: every tools/list page, in the server's order. A failure of the first page fails the
 * fetch (thrown); a later page that fails, a repeated cursor or more than `maxPages` pages
 * end it as a partial fetch that keeps the tools gathered so far, as goose does, and says why
 * (`complete: false`, `reason`). A tool the core's lenient schema still cannot hold (a field
 * of the wrong type) is kept by name only, so the core reports it as a rejected tool; an
 * entry without a string name cannot be addressed at all and is dropped.
 */
export async function fetchTools(
  connection: ExtensionConnection,
  options: FetchToolsOptions,
): Promise<FetchedTools> {
  const tools: McpTool[] = [];
  const seen = new Set<string>();
  const server = JSON.stringify(connection.config.name);
  let cursor: string | undefined;
  let pages = 0;
  const partial = (reason: string): FetchedTools => ({ tools, pages, complete: false, reason });
  for (;;) {
    if (pages >= options.maxPages) {
      return partial(
        `tools/list of extension ${server} did not end after ${options.maxPages} pages; stopped there, ${tools.length} tool(s) kept (raise maxPages if the server really has that many)`,
      );
    }
    let page: Awaited<ReturnType<ExtensionConnection["listToolsPage"]>>;
    try {
      page = await connection.listToolsPage(cursor, {
        timeoutMs: options.requestTimeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      const e = asAdapterError(error);
      // The first page is the whole listing's fate; the host closing is not a server fault.
      if (pages === 0 || e.code === "SESSION_CLOSED") throw e;
      return partial(
        `tools/list page ${pages + 1} of extension ${server} failed (${e.code}: ${e.message}); the ${tools.length} tool(s) of the first ${pages} page(s) are kept`,
      );
    }
    pages++;
    for (const raw of page.tools) {
      const tool = toMcpTool(raw);
      if (tool) tools.push(tool);
    }
    if (page.nextCursor === undefined) return { tools, pages, complete: true };
    if (seen.has(page.nextCursor)) {
      return partial(
        `tools/list of extension ${server} repeated cursor ${JSON.stringify(page.nextCursor)} after page ${pages}; stopped to avoid an endless loop, ${tools.length} tool(s) kept`,
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
