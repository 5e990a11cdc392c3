import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { serverScriptPath } from "@toolledger/adapters-mcp";
import { type BenchResult, measured } from "./benchResult.js";
import { scratchDir } from "./scratchDir.js";
import { median } from "./stats.js";

// bench/dist/firstAnswer.js → the built CLI.
const CLI = fileURLToPath(new URL("../../packages/cli/dist/main.js", import.meta.url));

/**
 * 11: how long a host waits for `toolledger serve` (spawned as a host spawns it) to answer
 * `initialize` and the first `tools/list` when one server never initialises and another
 * never answers tools/list, beside a good one. The bound is the issue's: one second.
 */
export async function firstAnswer(rounds: number): Promise<BenchResult[]> {
  const { dir, remove } = scratchDir("first-answer");
  try {
    const node = (script: Parameters<typeof serverScriptPath>[0], ...args: string[]) => ({
      command: process.execPath,
      args: [serverScriptPath(script), ...args],
    });
    const hung = join(dir, "hung.json");
    writeFileSync(
      hung,
      JSON.stringify({
        toolledger: { start_timeout: 300 },
        mcpServers: {
          good: node("notes"),
          noinit: node("slowStart", "--hang-init"),
          nolist: node("faulty", "--hang-list"),
        },
      }),
    );
    const none = join(dir, "none.json");
    writeFileSync(none, JSON.stringify({ mcpServers: {} }));
    const withHung: number[] = [];
    const noServers: number[] = [];
    for (let round = 0; round < Math.max(3, rounds * 2); round++) {
      // Alternate which runs first, so a loaded machine weighs on both alike.
      const order = round % 2 === 0 ? [hung, none] : [none, hung];
      for (const config of order) {
        const ms = await timeToFirstList(config, join(dir, `r${round}.db`));
        (config === hung ? withHung : noServers).push(ms);
      }
    }
    return [
      measured({
        id: "11",
        name: "serve: initialize + first tools/list, beside a never-initialising and a never-listing server",
        unit: "ms",
        toolledger: median(withHung),
        baseline: 1_000,
        baselineName: "one second (the bound a host should wait at most)",
        target: { op: "<=", value: 1 },
        note: `from spawning the process (Node, module loading, the database, the host); max ${Math.max(...withHung).toFixed(0)} ms`,
        details: { withHung },
      }),
      measured({
        id: "11b",
        name: "the same vs serve with no servers at all (the process's own start)",
        unit: "ms",
        toolledger: median(withHung),
        baseline: median(noServers),
        baselineName: "serve --config with an empty server list",
        note: "what the hung and good servers add to the first answer: at most the wait for fast servers (until 750 ms after the process started)",
        details: { withHung, noServers },
      }),
    ];
  } finally {
    remove();
  }
}

async function timeToFirstList(config: string, db: string): Promise<number> {
  const client = new Client({ name: "toolledger-bench", version: "1.0.0" });
  const t = performance.now();
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--config", config, "--db", db],
      stderr: "ignore",
    }),
  );
  await client.listTools();
  const ms = performance.now() - t;
  await client.close();
  return ms;
}
