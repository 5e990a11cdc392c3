#!/usr/bin/env node
// Test server over streamable HTTP on a loopback port (`--port 0` picks one); prints
// `listening <url>` on stdout once it accepts connections.
import type { Server } from "@modelcontextprotocol/server";
import { hostMcpOverHttp } from "../gateway/httpHost.js";
import { flag, objectSchema, text, toolServer, unknownTool } from "./internal/serve.js";

const added = new Set<string>();
const servers = new Set<Server>();
const tools = () =>
  ["echo", "add_tool", "check_header", ...added].map((name) => ({
    name,
    description: `http server tool ${name}`,
    inputSchema: objectSchema({ value: { type: "string" }, name: { type: "string" } }),
  }));

const host = await hostMcpOverHttp(
  () => {
    const server = toolServer({
      name: "http-test",
      list: () => ({ tools: tools() }),
      call: async (name, args, extra) => {
        if (name === "echo") return text(`echo:${String(args.value ?? "")}`);
        if (name === "add_tool") {
          added.add(String(args.name));
          await Promise.all([...servers].map((s) => s.sendToolListChanged()));
          return text(`added ${String(args.name)}`);
        }
        // Reports whether the header arrived, never its value.
        if (name === "check_header")
          return text(
            extra.http?.req?.headers.get("x-api-key") ? "x-api-key present" : "x-api-key missing",
          );
        if (added.has(name)) return text(`${name} ran`);
        return unknownTool(name);
      },
    });
    servers.add(server);
    server.onclose = () => servers.delete(server);
    return server;
  },
  { port: Number(flag("port", "0")) },
);
process.stdout.write(`listening ${host.url.href}\n`);
const stop = () => {
  host.close().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`http test server: ${String(error)}\n`);
      process.exit(1);
    },
  );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
