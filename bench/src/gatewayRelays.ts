import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
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
import { median, percentile } from "./stats.js";

// 10 MB: the SDK's stdio transports refuse a message over 10 MiB on either side.
const BIG = 10_000_000;
const NOTIFICATIONS = 1000;
const within = { op: "<=", value: 1.5 } as const;
/**
 * 9b/9d: the relay's own cost over the floor of any process in the middle (issue 34.15): a
 * burst through the gateway against the same burst through the byte pipe, in the same run.
 */
const overPipe = { op: "<=", value: 1.15 } as const;

/** The 3! orders of three sides, taken in turn so each side runs first, second and last alike. */
const ORDERS = [
  [0, 1, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
  [0, 2, 1],
  [1, 0, 2],
] as const;

/**
 * Medians of three measures run in rotating order, `rounds` times after `warmup` rounds: one
 * sample of each per round, so all three see the same stretch of the machine's load.
 */
async function rotate3(
  rounds: number,
  warmup: number,
  measures: readonly [() => Promise<number>, () => Promise<number>, () => Promise<number>],
): Promise<[number[], number[], number[]]> {
  const samples: [number[], number[], number[]] = [[], [], []];
  for (let round = 0; round < warmup + rounds; round++) {
    for (const side of ORDERS[round % ORDERS.length]!) {
      const ms = await measures[side]();
      if (round >= warmup) samples[side].push(ms);
    }
  }
  return samples;
}

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
 * through a byte pipe instead of the gateway, what any process in the middle costs 9b; and
 * 9b/9d, the gateway's bursts against the pipe's: the relay's own cost, which is judged.
 */
export async function gatewayRelays(rounds: number): Promise<BenchResult[]> {
  const names = {
    big: "10 MB tool result, gateway (stdio) vs direct",
    progress: "1,000 progress notifications in one call, gateway (stdio) vs direct",
    floor: "the same 1,000 notifications through a byte pipe (nothing parsed) vs direct",
    armed: "tools/call with a progress token armed vs without, through the gateway",
    overPipe: "the same 1,000 notifications: gateway vs byte pipe (the relay's own cost)",
  };
  let reference: string;
  try {
    reference = serverScriptPath("reference");
  } catch (error) {
    const why = `the reference server is not built: ${errorLine(error)}`;
    return [
      notRun("9a", names.big, "direct", why, within),
      notRun("9b", names.progress, "direct", why),
      notRun("9b/9d", names.overPipe, "the byte pipe", why, overPipe),
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
    // The SDK client drops the reports it reads in one chunk with the response (it handles
    // notifications a turn later than responses): the gateway pings its client before the
    // response so that it gets them all, and the server does the same here (`settle`), so
    // that every side's client handles all 1,000 (without it, a direct client handled 618–949
    // and one behind the pipe 461–950: 9d did less work than 9b, not the same work faster).
    // Reports handled per burst: 9b's two sides (direct shared with 9d), and 9d's pipe.
    const handled = { gateway: [] as number[], direct: [] as number[] };
    const handledThroughPipe: number[] = [];
    const stream = (c: Client, counts: number[]) => async () => {
      let seen = 0;
      await c.request(
        {
          method: "tools/call",
          params: { name: "progress_burst", arguments: { count: NOTIFICATIONS, settle: true } },
        },
        { onprogress: () => seen++, timeout: 120_000 },
      );
      counts.push(seen);
      if (seen !== NOTIFICATIONS)
        throw new Error(`a client handled ${seen} of ${NOTIFICATIONS} progress reports`);
    };
    // Three warm-up rounds: with one, the first measured 10 MB call through a fresh gateway
    // took 1.5–2 times the later ones (589 and 447 ms against ~300 in two --only=9 runs).
    const bigTimes = await interleave(
      { rounds: rounds * 4, warmup: 3 },
      () => timeMsAsync(big(gateway)),
      () => timeMsAsync(big(direct)),
    );
    // 9b and 9d in one rotation (gateway, pipe, direct), so 9b/9d is the gateway's bursts
    // against the pipe's on the same load. Three warm-up rounds: the first three bursts of a
    // fresh process were 2–4 times the later ones, on either side (the client's progress
    // handling, then the gateway's relay; one round left the first measured burst of each side
    // at 78 and 89 ms against ~30–50).
    const [viaGateway, viaPipe, straight] = await rotate3(rounds * 6, 3, [
      () => timeMsAsync(stream(gateway, handled.gateway)),
      () => timeMsAsync(stream(piped, handledThroughPipe)),
      () => timeMsAsync(stream(direct, handled.direct)),
    ]);
    const gatewayBurst = median(viaGateway);
    const pipeBurst = median(viaPipe);
    const directBurst = median(straight);
    const rss = peakRssMiB(gatewayPid);

    const plain = () => gateway.callTool({ name: "test_simple_text", arguments: {} });
    const armed = () =>
      gateway.request(
        { method: "tools/call", params: { name: "test_simple_text", arguments: {} } },
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
        toolledger: gatewayBurst,
        baseline: directBurst,
        baselineName: "SDK client straight to the reference server",
        note: `${rssNote}; reports handled by the client: gateway ${Math.min(...handled.gateway)}–${Math.max(...handled.gateway)}, direct ${Math.min(...handled.direct)}–${Math.max(...handled.direct)} of ${NOTIFICATIONS}; judged against 9d (9b/9d)`,
        details: {
          samples: { toolledger: viaGateway, baseline: straight },
          gatewayPeakRssMiB: rss,
          handled,
        },
      }),
      measured({
        id: "9b/9d",
        name: names.overPipe,
        unit: "ms",
        toolledger: gatewayBurst,
        baseline: pipeBurst,
        baselineName: "9d's byte pipe, in the same rotation",
        target: overPipe,
        note: `9b ${(gatewayBurst / directBurst).toFixed(2)} / 9d ${(pipeBurst / directBurst).toFixed(2)}, one rotation of gateway, pipe and direct (${viaGateway.length} bursts each)`,
        details: { samples: { toolledger: viaGateway, baseline: viaPipe } },
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
        toolledger: pipeBurst,
        baseline: directBurst,
        baselineName: "SDK client straight to the reference server",
        note: `the floor of any stdio hop on this machine, in 9b's rotation; reports handled through the pipe ${Math.min(...handledThroughPipe)}–${Math.max(...handledThroughPipe)} of ${NOTIFICATIONS}`,
        details: {
          samples: { toolledger: viaPipe, baseline: straight },
          handled: handledThroughPipe,
        },
      }),
    ];
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    tmp.remove();
  }
}
