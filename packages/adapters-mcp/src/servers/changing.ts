#!/usr/bin/env node
// Test server whose tool list changes on request and that says so with list_changed.
// `--list-delay-ms N` slows every tools/list; `arm_race` makes the next tools/list change
// the list and notify while that very list request is still in flight (R11 race).
import {
  flag,
  objectSchema,
  type RawTool,
  serveStdio,
  sleep,
  text,
  toolServer,
  unknownTool,
} from "./internal/serve.js";

const listDelayMs = Number(flag("list-delay-ms", "0"));
const fixed = ["ping", "add_tool", "remove_tool", "burst", "arm_race", "stats"];
const added = new Set<string>();
let listCount = 0;
let armed = false;

const describe = (name: string): RawTool => ({
  name,
  description: `changing server tool ${name}`,
  inputSchema: objectSchema({ name: { type: "string" }, count: { type: "number" } }),
});
const current = () => [...fixed, ...added].map(describe);

const server = toolServer({
  name: "changing",
  list: async () => {
    listCount++;
    const snapshot = current();
    if (armed) {
      armed = false;
      added.add("raced");
      await server.sendToolListChanged();
      await sleep(150);
    }
    if (listDelayMs > 0) await sleep(listDelayMs);
    return { tools: snapshot };
  },
  call: async (name, args) => {
    switch (name) {
      case "ping":
        return text("pong");
      case "add_tool":
        added.add(String(args.name));
        await server.sendToolListChanged();
        return text(`added ${String(args.name)}`);
      case "remove_tool":
        added.delete(String(args.name));
        await server.sendToolListChanged();
        return text(`removed ${String(args.name)}`);
      case "burst": {
        const count = Number(args.count ?? 5);
        for (let i = 0; i < count; i++) await server.sendToolListChanged();
        return text(`sent ${count} list_changed`);
      }
      case "arm_race":
        armed = true;
        await server.sendToolListChanged();
        return text("armed");
      case "stats":
        return text(JSON.stringify({ listCount }));
      default:
        if (added.has(name)) return text(`${name} ran`);
        return unknownTool(name);
    }
  },
});
await serveStdio(server);
