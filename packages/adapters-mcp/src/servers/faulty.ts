#!/usr/bin/env node
// Test server for faults: `crash` exits, `freeze` blocks the event loop for good, `slow`
// sleeps (and counts cancellations). Flags: `--hang-list` never answers tools/list,
// `--malformed` adds a tool without inputSchema, `--crash-on-start` dies before serving,
// `--stay-down <file>`: after `crash`, every later start dies too (a server that stays down
// through restarts).
import { existsSync, writeFileSync } from "node:fs";
import {
  type Extra,
  flag,
  hasFlag,
  objectSchema,
  type RawTool,
  serveStdio,
  sleep,
  text,
  toolServer,
  unknownTool,
} from "./internal/serve.js";

const stayDown = hasFlag("stay-down") ? flag("stay-down", "") : "";
if (stayDown !== "" && existsSync(stayDown)) {
  process.stderr.write("faulty: refusing to start (it crashed before)\n");
  process.exit(5);
}

if (hasFlag("crash-on-start")) {
  // Prints its token, as careless servers do: the adapter must redact it.
  process.stderr.write(
    `faulty: refusing to start (--crash-on-start) token=${process.env.FAULTY_TOKEN ?? "none"}\n`,
  );
  process.exit(2);
}

let cancelled = 0;
const tools: RawTool[] = [
  { name: "ok", description: "Answers ok", inputSchema: objectSchema() },
  { name: "crash", description: "Exits the server process", inputSchema: objectSchema() },
  { name: "freeze", description: "Blocks the server forever", inputSchema: objectSchema() },
  {
    name: "slow",
    description: "Sleeps ms milliseconds",
    inputSchema: objectSchema({ ms: { type: "number" } }),
  },
  { name: "stats", description: "Counts", inputSchema: objectSchema() },
];
if (hasFlag("malformed"))
  tools.push({ name: "no_schema", description: "A tool without inputSchema" });

const slow = async (ms: number, extra: Extra) => {
  try {
    await sleep(ms, extra.mcpReq.signal);
    return text(`slept ${ms}`);
  } catch (error) {
    cancelled++;
    throw error;
  }
};

await serveStdio(
  toolServer({
    name: "faulty",
    list: () => (hasFlag("hang-list") ? new Promise<never>(() => {}) : { tools }),
    call: async (name, args, extra) => {
      switch (name) {
        case "ok":
          return text("ok");
        case "crash":
          if (stayDown !== "") writeFileSync(stayDown, "down");
          process.stderr.write("faulty: crashing on request\n");
          process.exit(3);
          break;
        case "freeze":
          for (;;) {
            // blocks the event loop: the process stays alive and answers nothing
          }
        case "slow":
          return slow(Number(args.ms ?? 10_000), extra);
        case "stats":
          return text(JSON.stringify({ cancelled }));
      }
      return unknownTool(name);
    },
  }),
);
