#!/usr/bin/env node
// Test server whose tools/list never ends: `--mode repeat` sends the same cursor forever,
// `--mode endless` a fresh cursor on every page.
import { flag, objectSchema, serveStdio, text, toolServer } from "./internal/serve.js";

const mode = flag("mode", "repeat");
let page = 0;

await serveStdio(
  toolServer({
    name: "cursor-loop",
    list: () => {
      page++;
      const tools = [{ name: `looping_${page}`, inputSchema: objectSchema() }];
      return { tools, nextCursor: mode === "repeat" ? "again" : `page-${page}` };
    },
    call: (name) => text(`called ${name}`),
  }),
);
