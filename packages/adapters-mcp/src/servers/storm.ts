#!/usr/bin/env node
// Test server that speaks raw JSON-RPC over stdio (no SDK), to send tools/list_changed as
// fast as a pipe takes it. Tools: `storm {count, name}` answers, then 200 ms later sends
// `count` list_changed over about a second and adds tool `name` before the last one;
// `add {name}` answers, then 200 ms later adds tool `name` and sends one list_changed;
// `stats` says how many tools/list requests it answered; `bad_result` answers with a result
// MCP does not allow (`content` a string); `rpc_error` answers with a JSON-RPC error (code
// -32050, data `{ why: "asked" }`). `--list-log <file>` appends a line per tools/list request.
import { appendFileSync } from "node:fs";

const listLog = flag("list-log");
const fixed = ["storm", "add", "stats", "bad_result", "rpc_error"];
const added: string[] = [];
let lists = 0;

const tool = (name: string) => ({
  name,
  description: `storm server tool ${name}`,
  inputSchema: {
    type: "object",
    properties: { name: { type: "string" }, count: { type: "number" } },
  },
});

function send(message: object): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const listChanged = () => send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
const text = (value: string) => ({ content: [{ type: "text", text: value }] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function storm(count: number, name: string): Promise<void> {
  await sleep(200);
  const batches = 20;
  const perBatch = Math.ceil(count / batches);
  let sent = 0;
  for (let b = 0; b < batches && sent < count; b++) {
    for (let i = 0; i < perBatch && sent < count - 1; i++, sent++) listChanged();
    await sleep(1000 / batches);
  }
  added.push(name);
  listChanged();
}

function call(name: string, args: Record<string, unknown>): object {
  switch (name) {
    case "storm":
      void storm(Number(args.count ?? 1000), String(args.name ?? "after_storm"));
      return text(`storming with ${String(args.count ?? 1000)} list_changed`);
    case "add":
      void sleep(200).then(() => {
        added.push(String(args.name));
        listChanged();
      });
      return text(`adding ${String(args.name)} in 200 ms`);
    case "stats":
      return text(JSON.stringify({ lists }));
    case "bad_result":
      return { content: "not a list" };
    default:
      if (added.includes(name)) return text(`${name} ran`);
      return { ...text(`unknown tool ${name}`), isError: true };
  }
}

function answer(request: {
  id: number | string;
  method: string;
  params?: Record<string, unknown>;
}) {
  const { id, method, params } = request;
  switch (method) {
    case "initialize":
      return send({
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: String(params?.protocolVersion ?? "2025-06-18"),
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: "storm", version: "0.1.0" },
        },
      });
    case "ping":
      return send({ jsonrpc: "2.0", id, result: {} });
    case "tools/list":
      lists++;
      if (listLog) appendFileSync(listLog, "tools/list\n");
      return send({ jsonrpc: "2.0", id, result: { tools: [...fixed, ...added].map(tool) } });
    case "tools/call": {
      const name = String(params?.name ?? "");
      if (name === "rpc_error")
        return send({
          jsonrpc: "2.0",
          id,
          error: { code: -32050, message: "storm refuses", data: { why: "asked" } },
        });
      const args = (params?.arguments ?? {}) as Record<string, unknown>;
      return send({ jsonrpc: "2.0", id, result: call(name, args) });
    }
    default:
      return send({
        jsonrpc: "2.0",
        id,
        error: { code: -32601, message: `method not found: ${method}` },
      });
  }
}

let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  buffer += chunk;
  for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
    const line = buffer.slice(0, nl).trim();
    buffer = buffer.slice(nl + 1);
    if (line === "") continue;
    const message = JSON.parse(line) as {
      id?: number | string;
      method?: string;
      params?: Record<string, unknown>;
    };
    // Notifications (initialized, cancelled) and responses need no answer.
    if (message.id !== undefined && typeof message.method === "string")
      answer(message as { id: number | string; method: string });
  }
});
process.stdin.on("end", () => process.exit(0));

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}
