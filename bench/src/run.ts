// `pnpm bench`: every benchmark, one table, bench/results.json.
// Options: --only=1,3,7 (benchmark numbers), --events=N (log size, default 1,000,000),
// --rounds=N (rounds of the slow benchmarks, default 3).
import { writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { type BenchResult, errorLine, notRun } from "./benchResult.js";
import { conversationsBench } from "./conversations.js";
import { costPerEvent } from "./costPerEvent.js";
import { firstAnswer } from "./firstAnswer.js";
import { formatTable } from "./formatTable.js";
import { gatewayOverhead } from "./gatewayOverhead.js";
import { gatewayRelays } from "./gatewayRelays.js";
import { modernCalls } from "./modernCalls.js";
import { peers } from "./peers.js";
import { postgresStore } from "./postgresStore.js";
import { queries } from "./queries.js";
import { registryHeap } from "./registryHeap.js";
import { replayRss } from "./replayRss.js";
import { replayThroughput } from "./replayThroughput.js";
import { sessionLogOptions } from "./sessionLog.js";
import { sessionLogFile } from "./sessionLogFile.js";
import { appendWorkload, sqliteAppendLoad } from "./sqliteAppendLoad.js";
import { toolSearch } from "./toolSearch.js";
import { viewRender } from "./viewRender.js";
import type { WrittenLog } from "./writeJsonl.js";

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=");
    return [k!, v ?? "true"] as const;
  }),
);
const only = args.get("only")?.split(",") ?? null;
const events = Number(args.get("events") ?? 1_000_000);
const rounds = Number(args.get("rounds") ?? 3);

const results: BenchResult[] = [];
const started = performance.now();
const log = (text: string) =>
  process.stderr.write(
    `[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)}s] ${text}\n`,
  );

async function step(
  id: string,
  label: string,
  run: () => Promise<BenchResult | BenchResult[]>,
): Promise<void> {
  if (only && !only.includes(id)) return;
  log(`${id}: ${label}`);
  const t = performance.now();
  const before = Number(loadavg()[0]!.toFixed(2));
  let measured: BenchResult[];
  try {
    const r = await run();
    measured = Array.isArray(r) ? r : [r];
  } catch (error) {
    measured = [notRun(id, label, "", `failed: ${errorLine(error)}`)];
    if (process.env.BENCH_DEBUG) console.error(error);
  }
  const after = Number(loadavg()[0]!.toFixed(2));
  for (const r of measured) results.push({ ...r, loadAverage: { before, after } });
  log(
    `${id}: done in ${((performance.now() - t) / 1000).toFixed(1)}s (load average ${before} → ${after})`,
  );
}

const loadBefore = loadavg();
await step("2", "cost per event vs registry size", () => costPerEvent(11));
await step("3", "queries on a 20,000-tool registry", () => queries(7));
await step("7", "heap of a 20,000-tool registry", () => registryHeap(3));

let sessionLog: (WrittenLog & { written: boolean; ms: number }) | null = null;
const needLog = !only || only.includes("1") || only.includes("7");
if (needLog) {
  log(`generating the ${events}-event session log (cached in bench/results.tmp/)`);
  sessionLog = await sessionLogFile(`session-${events}`, sessionLogOptions(events));
  log(
    `log: ${sessionLog.events} events, ${(sessionLog.bytes / 2 ** 20).toFixed(0)} MiB, ${sessionLog.written ? `written in ${(sessionLog.ms / 1000).toFixed(1)}s` : "reused"}`,
  );
}
await step("1", "replay throughput", () => replayThroughput(sessionLog!, rounds));
await step("7", "peak RSS while replaying", () => replayRss(sessionLog!, 1));

const needAppend = !only || only.includes("4") || only.includes("6") || only.includes("12");
const workload = needAppend ? appendWorkload() : [];
await step("4", "SQLite append and load", () => sqliteAppendLoad(2, workload));
await step("5", "gateway overhead", () => gatewayOverhead());
await step("5m", "2026-07-28 calls through serve", () => modernCalls());
await step("6", "peers", () => peers(workload, 2));
await step("8", "conversations over one registry", () => conversationsBench(rounds));
await step("9", "gateway relays", () => gatewayRelays(rounds));
await step("10", "view of a 100,000-event session in Chromium", () => viewRender(rounds));
await step("11", "serve: first full tools/list beside hung servers", () => firstAnswer(rounds));
await step("12", "PostgreSQL store", () => postgresStore(3, workload));
await step("13", "tool search: prompt tokens, latency, re-index, recall@5", () =>
  toolSearch(rounds),
);

results.sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
const machine = {
  nproc: cpus().length,
  cpu: cpus()[0]?.model ?? "unknown",
  node: process.version,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  freeMemoryGiB: Math.round(freemem() / 2 ** 30),
  loadAverageBefore: loadBefore.map((x) => Number(x.toFixed(2))),
  loadAverageAfter: loadavg().map((x) => Number(x.toFixed(2))),
};
const totalSeconds = (performance.now() - started) / 1000;
const table = formatTable(results);
process.stdout.write(
  `\ntoolledger benchmarks — ${machine.nproc} cores, ${machine.cpu}, Node ${machine.node}, load average ${machine.loadAverageBefore.join(" ")} → ${machine.loadAverageAfter.join(" ")}, ${totalSeconds.toFixed(0)} s\n\n${table}\n`,
);
const out = fileURLToPath(new URL("../results.json", import.meta.url));
writeFileSync(
  out,
  `${JSON.stringify({ date: new Date().toISOString(), machine, totalSeconds, options: { events, rounds }, results }, null, 2)}\n`,
);
log(`wrote ${out}`);
