#!/usr/bin/env node
// Test server: `--tools N` tools served `--page-size M` per tools/list page; with
// `--fail-page K` the K-th page (1-based) answers with an error instead; `--names a,b.c`
// lists those names instead of tool_000….
import { flag, objectSchema, serveStdio, text, toolServer, unknownTool } from "./internal/serve.js";

const count = Number(flag("tools", "25"));
const pageSize = Number(flag("page-size", "10"));
const failPage = Number(flag("fail-page", "0"));
const names =
  flag("names", "") !== ""
    ? flag("names", "").split(",")
    : Array.from({ length: count }, (_, i) => `tool_${String(i).padStart(3, "0")}`);

await serveStdio(
  toolServer({
    name: "paged",
    list: (cursor) => {
      const start = cursor === undefined ? 0 : Number(cursor.replace("page-", ""));
      if (failPage > 0 && start / pageSize + 1 === failPage)
        throw new Error(`page ${failPage} is unavailable (--fail-page)`);
      const tools = names.slice(start, start + pageSize).map((name) => ({
        name,
        description: `Echoes its input (${name})`,
        inputSchema: objectSchema({ value: { type: "string" } }),
      }));
      const next = start + pageSize;
      return next < names.length ? { tools, nextCursor: `page-${next}` } : { tools };
    },
    call: (name, args) =>
      names.includes(name) ? text(`${name}:${String(args.value ?? "")}`) : unknownTool(name),
  }),
);
