import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { serverScriptPath } from "@toolledger/adapters-mcp";
import { type BenchResult, measured, notRun } from "./benchResult.js";
import { alternateBlocks, CLI, serveArgs } from "./mcpClients.js";
import { scratchDir } from "./scratchDir.js";
import { percentile } from "./stats.js";

const WARMUP_CALLS = 2000;

/** An SDK v2 client over stdio: pinned to 2026-07-28 (`modern`) or the 2025 default (`legacy`). */
async function eraClient(era: "modern" | "legacy", args: string[]): Promise<Client> {
  const client = new Client(
    { name: `toolledger-bench-${era}`, version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, stderr: "ignore" }),
  );
  return client;
}

/**
 * Benchmark 5m (V1): sequential tools/call of a 2026-07-28 client through `toolledger serve`
 * (stdio, write-ahead) to an SDK v2 dual-era server it reaches in the modern era, against the
 * same client straight to the same server; beside the same pair in the 2025 era (a legacy
 * client, the upstream pinned legacy). The target: the modern path's ratio no worse
 * than the legacy path's.
 */
export async function modernCalls(): Promise<BenchResult[]> {
  const name =
    "tools/call (stdio) through serve ÷ direct, 2026-07-28 client and upstream vs 2025 client and upstream";
  if (!existsSync(CLI))
    return [notRun("5m", name, "the 2025 path's ratio", `the CLI is not built (${CLI})`)];
  const tmp = scratchDir("modern");
  const clients: Client[] = [];
  const open = async (era: "modern" | "legacy", args: string[]) => {
    const c = await eraClient(era, args);
    clients.push(c);
    return c;
  };
  try {
    const upstream = [serverScriptPath("dualEra")];
    const gateway = (era: "modern" | "legacy") => {
      const config = join(tmp.dir, `${era}.json`);
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: {
            up: { command: process.execPath, args: upstream, protocol_era: era },
          },
        }),
      );
      return serveArgs(config, join(tmp.dir, `${era}.db`), "--deferral", "off");
    };
    const modernGw = await open("modern", gateway("modern"));
    const legacyGw = await open("legacy", gateway("legacy"));
    const modernDirect = await open("modern", upstream);
    const legacyDirect = await open("legacy", upstream);
    const call = (c: Client, tool: string) => (i: number) =>
      c.callTool({ name: tool, arguments: { value: String(i) } });
    for (const c of [modernGw, legacyGw]) {
      for (let tries = 0; ; tries++) {
        const r = (await c.callTool({ name: "up__era", arguments: {} })) as {
          isError?: boolean;
          content: { text?: string }[];
        };
        if (!r.isError) {
          const era = r.content[0]?.text;
          const want = c === modernGw ? "modern" : "legacy";
          if (era !== want)
            throw new Error(`the upstream was reached in the ${era} era, not ${want}`);
          break;
        }
        if (tries > 200) throw new Error(`the gateway never served up__era: ${JSON.stringify(r)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const m = { gw: call(modernGw, "up__echo"), direct: call(modernDirect, "echo") };
    const l = { gw: call(legacyGw, "up__echo"), direct: call(legacyDirect, "echo") };
    await alternateBlocks(WARMUP_CALLS, 50, m.gw, m.direct);
    await alternateBlocks(WARMUP_CALLS, 50, l.gw, l.direct);
    const modern = { a: [] as number[], b: [] as number[] };
    const legacy = { a: [] as number[], b: [] as number[] };
    for (let k = 0; k < 10; k++) {
      const mm = await alternateBlocks(100, 50, m.gw, m.direct);
      const ll = await alternateBlocks(100, 50, l.gw, l.direct);
      modern.a.push(...mm.a);
      modern.b.push(...mm.b);
      legacy.a.push(...ll.a);
      legacy.b.push(...ll.b);
    }
    const p = (xs: number[]) => percentile(xs, 50);
    const modernRatio = p(modern.a) / p(modern.b);
    const legacyRatio = p(legacy.a) / p(legacy.b);
    return [
      measured({
        id: "5m",
        name,
        unit: "ratio p50",
        toolledger: modernRatio,
        baseline: legacyRatio,
        baselineName: "the same pair in the 2025 era (legacy client, upstream pinned legacy)",
        target: { op: "<=", value: 1.15 },
        note: `p50 modern: gateway ${p(modern.a).toFixed(3)}, direct ${p(modern.b).toFixed(3)} ms; legacy: gateway ${p(legacy.a).toFixed(3)}, direct ${p(legacy.b).toFixed(3)} ms; alternating blocks of 50`,
        details: {
          p50: {
            modernGateway: p(modern.a),
            modernDirect: p(modern.b),
            legacyGateway: p(legacy.a),
            legacyDirect: p(legacy.b),
          },
          n: modern.a.length,
        },
      }),
    ];
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    tmp.remove();
  }
}
