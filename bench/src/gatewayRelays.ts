import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { serverScriptPath } from "@toolledger/adapters-mcp";
import { type BenchResult, errorLine, measured, notRun } from "./benchResult.js";
import { interleave, timeMsAsync } from "./interleave.js";
import {
  alternateBlocks,
  BYTE_PIPE_SCRIPT,
  serveArgs,
  stdioClient,
  untilListed,
} from "./mcpClients.js";
import { scratchDir } from "./scratchDir.js";
import { percentile } from "./stats.js";

// 10 MB: the SDK's stdio transports refuse a message over 10 MiB on either side.
const BIG = 10_000_000;
const NOTIFICATIONS = 1000;
const within = { op: "<=", value: 1.5 } as const;

/** Peak resident set (VmHWM) of a process, in MiB; null where /proc is not there. */
function peakRssMiB(pid: number | null | undefined): number | null {
  if (!pid) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    // Not Linux, or the process is gone: the row says "n/a" instead of a number.
    return null;
  }
}

/**
 * Benchmark 9 (G1): what the relays cost. 9a a 10 MB tool result and 9b a stream of 1,000
 * progress notifications, through the gateway (stdio) against the same calls straight to the
 * shipped reference server, with the gateway's peak RSS; 9c a plain call against the same call
 * with a progress token armed, the relay's price for a call that could use it; 9d 9b's stream
 * through a byte pipe instead of the gateway, what any process in the middle costs 9b.
 */
export async function gatewayRelays(rounds: number): Promise<BenchResult[]> {
  const names = {
    big: "10 MB tool result, gateway (stdio) vs direct",
    progress: "1,000 progress notifications in one call, gateway (stdio) vs direct",
    floor: "the same 1,000 notifications through a byte pipe (nothing parsed) vs direct",
    armed: "tools/call with a progress token armed vs without, through the gateway",
  };
  let reference: string;
  try {
    reference = serverScriptPath("reference");
  } catch (error) {
    const why = `the reference server is not built: ${errorLine(error)}`;
    return [
      notRun("9a", names.big, "direct", why, within),
      notRun("9b", names.progress, "direct", why, within),
      notRun("9c", names.armed, "without", why),
      notRun("9d", names.floor, "direct", why),
    ];
  }
  const tmp = scratchDir("relays");
  const clients: Client[] = [];
  try {
    const config = join(tmp.dir, "gateway.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          reference: { command: process.execPath, args: [reference], expose_unprefixed: true },
        },
      }),
    );
    const gateway = await stdioClient(serveArgs(config, join(tmp.dir, "ledger.db")));
    await untilListed(gateway, 1);
    const direct = await stdioClient([reference]);
    // 9d: the hop alone, as cheap as a process in between can be (see bytePipe.ts).
    const piped = await stdioClient([BYTE_PIPE_SCRIPT, reference]);
    clients.push(gateway, direct, piped);
    const gatewayPid = (gateway.transport as StdioClientTransport | undefined)?.pid;

    const big = (c: Client) => async () => {
      const r = (await c.callTool({ name: "big_result", arguments: { bytes: BIG } })) as {
        content: { text: string }[];
      };
      if (r.content[0]?.text.length !== BIG) throw new Error("the 10 MB result arrived cut");
    };
    // The SDK client drops the reports it reads in one chunk with the response: directly, a
    // burst loses many; the gateway pings before the response, so its client must get all.
    // Reports handled per burst: 9b's two sides, and 9d's pipe (its direct bursts uncounted).
    const handled = { gateway: [] as number[], direct: [] as number[] };
    const handledThroughPipe: number[] = [];
    const stream =
      (c: Client, counts: number[] | null, gatewaySide = false) =>
      async () => {
        let seen = 0;
        await c.request(
          {
            method: "tools/call",
            params: { name: "progress_burst", arguments: { count: NOTIFICATIONS } },
          },
          CallToolResultSchema,
          { onprogress: () => seen++, timeout: 120_000 },
        );
        counts?.push(seen);
        if (gatewaySide && seen !== NOTIFICATIONS)
          throw new Error(
            `the gateway's client handled ${seen} of ${NOTIFICATIONS} progress reports`,
          );
      };
    const bigTimes = await interleave(
      { rounds: rounds * 3, warmup: 1 },
      () => timeMsAsync(big(gateway)),
      () => timeMsAsync(big(direct)),
    );
    // Three warm-up rounds: the first three bursts of a fresh process were 2–4 times the later
    // ones, on either side (the client's progress handling, then the gateway's relay; one
    // round left the first measured burst of each side at 78 and 89 ms against ~30–50).
    const streamTimes = await interleave(
      { rounds: rounds * 3, warmup: 3 },
      () => timeMsAsync(stream(gateway, handled.gateway, true)),
      () => timeMsAsync(stream(direct, handled.direct)),
    );
    // Right after 9b, on the same machine load: what any process in the middle costs 9b.
    const floorTimes = await interleave(
      { rounds: rounds * 3, warmup: 3 },
      () => timeMsAsync(stream(piped, handledThroughPipe)),
      () => timeMsAsync(stream(direct, null)),
    );
    const rss = peakRssMiB(gatewayPid);

    const plain = () => gateway.callTool({ name: "test_simple_text", arguments: {} });
    const armed = () =>
      gateway.request(
        { method: "tools/call", params: { name: "test_simple_text", arguments: {} } },
        CallToolResultSchema,
        { onprogress: () => undefined },
      );
    await alternateBlocks(100, 50, armed, plain);
    const calls = await alternateBlocks(500, 50, armed, plain);
    const rssNote =
      rss === null ? "gateway peak RSS n/a" : `gateway peak RSS ${rss.toFixed(0)} MiB`;
    return [
      measured({
        id: "9a",
        name: names.big,
        unit: "ms",
        toolledger: bigTimes.toolledgerMedian,
        baseline: bigTimes.baselineMedian,
        baselineName: "SDK client straight to the reference server",
        target: within,
        note: rssNote,
        details: { samples: bigTimes, gatewayPeakRssMiB: rss },
      }),
      measured({
        id: "9b",
        name: names.progress,
        unit: "ms",
        toolledger: streamTimes.toolledgerMedian,
        baseline: streamTimes.baselineMedian,
        baselineName: "SDK client straight to the reference server",
        target: within,
        note: `${rssNote}; reports handled by the client: gateway ${Math.min(...handled.gateway)}–${Math.max(...handled.gateway)}, direct ${Math.min(...handled.direct)}–${Math.max(...handled.direct)} of ${NOTIFICATIONS}`,
        details: { samples: streamTimes, gatewayPeakRssMiB: rss, handled },
      }),
      measured({
        id: "9c",
        name: names.armed,
        unit: "ms p50",
        toolledger: percentile(calls.a, 50),
        baseline: percentile(calls.b, 50),
        baselineName: "the same call without _meta",
        note: "a plain call pays one _meta check and one in-flight record (for routing sampling); see 5c for the whole path against a bare SDK proxy",
        details: { n: calls.a.length },
      }),
      measured({
        id: "9d",
        name: names.floor,
        unit: "ms",
        toolledger: floorTimes.toolledgerMedian,
        baseline: floorTimes.baselineMedian,
        baselineName: "SDK client straight to the reference server",
        note: `the floor of any stdio hop on this machine, beside 9b; reports handled through the pipe ${Math.min(...handledThroughPipe)}–${Math.max(...handledThroughPipe)} of ${NOTIFICATIONS}`,
        details: { samples: floorTimes, handled: handledThroughPipe },
      }),
    ];
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    tmp.remove();
  }
}
