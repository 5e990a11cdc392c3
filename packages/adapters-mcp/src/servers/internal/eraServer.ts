import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { flag, hasFlag, objectSchema, text, unknownTool } from "./serve.js";

/**
 * V1: a test server on the SDK's era-aware entries (createMcpHandler over HTTP with `--http`,
 * serveStdio otherwise), modern-only (`legacy: 'reject'`) or dual-era (the defaults). Tools:
 * `echo`, `era` (the era of the request), `add_tool` (adds a tool and says tools/list_changed,
 * on the listen streams of modern clients), `crash` (answers, then exits); a prompt `greet` and a
 * resource `<name>://info`; `--page-size N` lists tools in pages. `--legacy-only`: the
 * same over stdio on the 2025-era entry alone (a legacy server). `--log <file>`: a line per process start and per
 * `server/discover` request (HTTP), so a test counts probes and sibling processes.
 */
export function startEraServer(name: string, legacy: "reject" | "serve"): void {
  const log = flag("log", "");
  const note = (line: string) => {
    if (log !== "") appendFileSync(log, `${line}\n`);
  };
  note(`start ${process.pid}`);
  const added = new Set<string>();
  const tools = () =>
    ["echo", "era", "add_tool", "crash", ...added].map((tool) => ({
      name: tool,
      description: `${name} tool ${tool}`,
      inputSchema: objectSchema({ value: { type: "string" }, name: { type: "string" } }),
    }));
  let changed: () => Promise<void> = async () => undefined;
  const build = (era: string) => {
    const server = new Server(
      { name, version: "0.1.0" },
      {
        capabilities: { tools: { listChanged: true }, prompts: {}, resources: {} },
        instructions: `${name} test server`,
      },
    );
    // `--page-size N`: tools/list in pages of N (a client must follow nextCursor).
    server.setRequestHandler("tools/list", (req) => {
      const all = tools();
      const size = Number(flag("page-size", "0")) || all.length;
      const start = Number(req.params?.cursor ?? "0");
      const next = start + size;
      return {
        tools: all.slice(start, next),
        ...(next < all.length ? { nextCursor: String(next) } : {}),
      } as never;
    });
    server.setRequestHandler("prompts/list", () => ({
      prompts: [{ name: "greet", arguments: [{ name: "who", required: true }] }],
    }));
    server.setRequestHandler("prompts/get", (req) => ({
      messages: [
        {
          role: "user" as const,
          content: {
            type: "text" as const,
            text: `${name} greets ${req.params.arguments?.who ?? "nobody"}`,
          },
        },
      ],
    }));
    server.setRequestHandler("resources/list", () => ({
      resources: [{ uri: `${name}://info`, name: "info", mimeType: "text/plain" }],
    }));
    server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));
    server.setRequestHandler("resources/read", (req) => ({
      contents: [{ uri: req.params.uri, mimeType: "text/plain", text: `${name} info (${era})` }],
    }));
    server.setRequestHandler("tools/call", async (req) => {
      const args = req.params.arguments ?? {};
      switch (req.params.name) {
        case "echo":
          return text(`${name} echo:${String(args.value ?? "")}`);
        case "era":
          return text(era);
        case "crash":
          // Answers, then exits: the gateway sees a crash and restarts it.
          setTimeout(() => process.exit(3), 50);
          return text("crashing");
        case "add_tool":
          added.add(String(args.name));
          await changed();
          return text(`added ${String(args.name)}`);
        default:
          return added.has(req.params.name)
            ? text(`${req.params.name} ran`)
            : unknownTool(req.params.name);
      }
    });
    return server;
  };
  if (hasFlag("legacy-only")) {
    // The same tools on the 2025-era entry alone: a legacy server, as most are today.
    const server = build("legacy");
    changed = async () => {
      await server.sendToolListChanged();
    };
    void server.connect(new StdioServerTransport());
    process.stdin.on("end", () => process.exit(0));
    return;
  }
  if (!hasFlag("http")) {
    let current: Server | undefined;
    changed = async () => {
      await current?.sendToolListChanged();
    };
    serveStdio(
      ({ era }) => {
        note(`opened ${era}`);
        current = build(era);
        return current;
      },
      { legacy },
    );
    return;
  }
  const handler = createMcpHandler(({ era }) => build(era), {
    legacy: legacy === "reject" ? "reject" : "stateless",
  });
  changed = async () => {
    await handler.notify.toolsChanged();
  };
  const node = toNodeHandler({
    fetch: async (request) => {
      if (request.method === "POST") {
        const body = await request.clone().text();
        if (body.includes('"server/discover"')) note("server/discover");
      }
      return handler.fetch(request);
    },
  });
  const http = createServer((req, res) => void node(req as never, res));
  http.listen(Number(flag("port", "0")), "127.0.0.1", () => {
    const address = http.address();
    const port = typeof address === "object" && address ? address.port : 0;
    process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
  });
  const stop = () => {
    void handler.close().finally(() => http.close(() => process.exit(0)));
    setTimeout(() => process.exit(0), 1_000).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
