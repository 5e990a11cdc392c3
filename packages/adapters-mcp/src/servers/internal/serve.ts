import { appendFileSync } from "node:fs";
import type {
  CallToolResult,
  RequestId,
  ServerContext,
  Transport,
} from "@modelcontextprotocol/server";
import { Server } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

export type Extra = ServerContext;
export type RawTool = { name: string; [key: string]: unknown };

export interface ToolServerSpec {
  name: string;
  /** One page of tools for `cursor` (undefined: the first page). */
  list: (
    cursor: string | undefined,
  ) =>
    | Promise<{ tools: RawTool[]; nextCursor?: string }>
    | { tools: RawTool[]; nextCursor?: string };
  call: (
    name: string,
    args: Record<string, unknown>,
    extra: Extra,
  ) => Promise<CallToolResult> | CallToolResult;
  instructions?: string;
}

/** A low-level SDK server: test servers need raw control over pages and malformed tools. */
export function toolServer(spec: ToolServerSpec): Server {
  const server = new Server(
    { name: spec.name, version: "0.1.0" },
    {
      capabilities: { tools: { listChanged: true } },
      ...(spec.instructions ? { instructions: spec.instructions } : {}),
    },
  );
  // `--list-log <file>`: a line per tools/list request, so a test counts what the server was asked.
  const listLog = flag("list-log", "");
  // Raw tools on purpose: a test server may send tools the protocol schema would reject, and
  // SDK 2 rewrites some on their way out (an `outputSchema` without an object root is wrapped
  // for the 2025 wire), so each page is put back into its response as it was made.
  const rawPages = new Map<RequestId, unknown>();
  server.setRequestHandler("tools/list", async (req, ctx) => {
    if (listLog !== "") appendFileSync(listLog, `tools/list ${req.params?.cursor ?? ""}\n`);
    const page = await spec.list(req.params?.cursor);
    rawPages.set(ctx.mcpReq.id, page);
    return page as unknown as { tools: [] };
  });
  const connect = server.connect.bind(server);
  server.connect = (transport: Transport) => {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (!("result" in message) || !rawPages.has(message.id)) return send(message, options);
      const result = rawPages.get(message.id) as typeof message.result;
      rawPages.delete(message.id);
      return send({ ...message, result }, options);
    };
    return connect(transport);
  };
  server.setRequestHandler("tools/call", async (req, ctx) =>
    spec.call(req.params.name, req.params.arguments ?? {}, ctx),
  );
  return server;
}

/** Serves over stdio and exits when the client closes stdin. */
export async function serveStdio(server: Server): Promise<void> {
  await server.connect(new StdioServerTransport());
  process.stdin.on("end", () => process.exit(0));
}

export function text(value: string, isError = false): CallToolResult {
  return isError
    ? { content: [{ type: "text", text: value }], isError: true }
    : { content: [{ type: "text", text: value }] };
}

export function unknownTool(name: string): CallToolResult {
  return text(`unknown tool ${name}`, true);
}

/** `--name value` from argv, or the fallback. */
export function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i === -1 ? undefined : process.argv[i + 1];
  return value ?? fallback;
}

export function hasFlag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}

export const objectSchema = (
  properties: Record<string, unknown> = {},
  required: string[] = [],
) => ({
  type: "object",
  properties,
  ...(required.length > 0 ? { required } : {}),
});

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new Error("cancelled"));
    });
  });
