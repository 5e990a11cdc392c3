#!/usr/bin/env node
// Test server for starts that are slow or fail: `--delay-ms N` waits before it serves
// (a first `npx -y` download), `--hang-init` reads requests but never answers initialize,
// `--crash-first N --state <file>` exits with code 1 on its first N starts (counted in the
// file), `--announce` sends tools/list_changed while its first tools/list is in flight (as
// servers that register tools late do). `--name`
// names it; its one tool `ping` answers "pong from <name>".
import { readFileSync, writeFileSync } from "node:fs";
import {
  flag,
  hasFlag,
  objectSchema,
  serveStdio,
  sleep,
  text,
  toolServer,
  unknownTool,
} from "./internal/serve.js";

const name = flag("name", "slow");
const crashFirst = Number(flag("crash-first", "0"));
if (crashFirst > 0) {
  const state = flag("state", "");
  if (state === "") throw new Error("--crash-first needs --state <file>");
  let starts = 0;
  try {
    starts = Number(readFileSync(state, "utf8")) || 0;
  } catch {
    // First start: no file yet.
  }
  writeFileSync(state, String(starts + 1));
  if (starts < crashFirst) {
    process.stderr.write(`${name}: crashing on start ${starts + 1} of ${crashFirst}\n`);
    process.exit(1);
  }
}
if (hasFlag("hang-init")) {
  // Keeps stdin open and the process alive, answering nothing.
  process.stdin.resume();
  setInterval(() => {}, 1 << 30);
} else {
  await sleep(Number(flag("delay-ms", "0")));
  let lists = 0;
  const server = toolServer({
    name,
    list: async () => {
      // The first list announces a change while it is in flight: that fetch has raced it.
      if (hasFlag("announce") && lists++ === 0) {
        await server.sendToolListChanged();
        await sleep(300);
      }
      return {
        tools: [
          { name: "ping", description: `Answers pong from ${name}`, inputSchema: objectSchema() },
        ],
      };
    },
    call: (tool) => (tool === "ping" ? text(`pong from ${name}`) : unknownTool(tool)),
  });
  await serveStdio(server);
}
