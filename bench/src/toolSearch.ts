import { readFileSync } from "node:fs";
import { contextTokens } from "@toolledger/cli";
import {
  type DeferralMode,
  listTools,
  type McpTool,
  replay,
  type State,
  searchIndex,
  searchTools,
  type ToolledgerEvent,
} from "@toolledger/core";
import { type BenchResult, measured } from "./benchResult.js";
import { makeTools } from "./makeTools.js";
import { PlainBm25 } from "./plainBm25.js";
import { registryEvents } from "./sessionLog.js";
import { percentile } from "./stats.js";

const v = 1 as const;
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), "utf8")) as unknown;

function withDeferral(events: ToolledgerEvent[], mode: DeferralMode): State {
  return replay([{ type: "DeferralConfigured", v, mode, alwaysLoad: [] }, ...events]);
}

/** `tools` tools in servers of 50, as benchmark 3 builds them. */
function registry(tools: number): ToolledgerEvent[] {
  return registryEvents(Math.ceil(tools / 50), 50);
}

/**
 * Benchmark 13 (issue 24): search mode against lookup and plain BM25. 13a–c: the tokens the
 * model is given (o200k_base, as `tools` and the view count them: the prompt section plus the
 * served definitions) at 500, 5,000 and 20,000 deferred tools; 13d: p50 latency of one search
 * on a 20,000-tool registry; 13e: the cost of re-indexing after one server's ToolsFetched, on
 * 20,000 tools against 500; 13f/g: recall@5 on real servers' catalogs (bench/fixtures), on the
 * queries the ranking was tuned on and on the held-out half, against plain BM25.
 */
export async function toolSearch(rounds: number): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  for (const [id, n] of [
    ["13a", 500],
    ["13b", 5_000],
    ["13c", 20_000],
  ] as const) {
    const events = registry(n);
    const search = contextTokens(withDeferral(events, "search")).received;
    const lookup = contextTokens(withDeferral(events, "lookup")).received;
    out.push(
      measured({
        id,
        name: `prompt tokens, ${n.toLocaleString("en")} deferred tools: search vs lookup`,
        unit: "tokens",
        toolledger: search,
        baseline: lookup,
        baselineName: "lookup (every deferred name)",
        ...(n === 5_000 ? { target: { op: "<=", value: 0.1 } } : {}),
      }),
    );
  }

  // 13d: one search on 20,000 tools; queries in a user's words over the generated catalog.
  const large = withDeferral(registry(20_000), "search");
  const queries = [
    "create an issue",
    "read the file at a path",
    "delete a branch",
    "post a message to a user",
    "search records with a query",
    "update the page body",
    "sync tasks",
    "list comments with a limit",
    "/sync_.*record/",
    "write a file and overwrite it",
  ];
  searchTools(large, "warm up the index");
  const samples: number[] = [];
  for (let r = 0; r < Math.max(rounds, 3) * 30; r++) {
    for (const q of queries) {
      const t = performance.now();
      const result = searchTools(large, q);
      samples.push(performance.now() - t);
      if (!result.ok) throw new Error(`${q}: ${result.error.message}`);
    }
  }
  // Baseline: the names list lookup mode would print for the same registry (what search replaces).
  const base: number[] = [];
  for (let r = 0; r < Math.max(rounds, 3) * 30; r++) {
    const t = performance.now();
    listTools(large)
      .map((tool) => tool.wireName)
      .join(", ");
    base.push(performance.now() - t);
  }
  out.push(
    measured({
      id: "13d",
      name: "one search, 20,000-tool registry (p50)",
      unit: "ms",
      toolledger: percentile(samples, 50),
      baseline: percentile(base, 50),
      baselineName: "joining the 20,000 names lookup lists",
      target: { op: "<=", value: 1, absolute: true },
      note: `p95 ${percentile(samples, 95).toFixed(3)} ms over ${samples.length} searches`,
    }),
  );

  // 13e: the index work one server's ToolsFetched causes: that server indexed again, the
  // registry's index put together from the others' (kept) indexes. The two registries'
  // samples alternate (order flipped every round), so both sides see the same load.
  const registries = [500, 20_000].map((tools) => {
    const state = withDeferral(registry(tools), "search");
    searchIndex(state);
    return { state, costs: [] as number[] };
  });
  for (let g = 1; g <= Math.max(rounds, 3) * 10; g++) {
    for (const r of g % 2 === 0 ? registries : [...registries].reverse()) {
      r.state = replay(
        [
          {
            type: "ToolsFetched",
            v,
            extension: "service1",
            startedAtVersion: r.state.version,
            tools: makeTools(1, 50, g),
          },
        ],
        r.state,
      );
      const t0 = performance.now();
      searchIndex(r.state);
      r.costs.push(performance.now() - t0);
    }
  }
  const small = percentile(registries[0]!.costs, 50);
  const big = percentile(registries[1]!.costs, 50);
  out.push(
    measured({
      id: "13e",
      name: "search index after one 50-tool ToolsFetched: 20,000 tools vs 500",
      unit: "ms",
      toolledger: big,
      baseline: small,
      baselineName: "the same on 500 tools",
      target: { op: "<=", value: 1.5 },
    }),
  );

  out.push(...retrieval());
  return out;
}

interface Catalogs {
  servers: { key: string; source: { package: string; version: string }; tools: McpTool[] }[];
}
interface Queries {
  queries: { query: string; relevant: string[]; half: "tuned" | "held-out" }[];
}

/** 13f/g: recall@5 of the search and of plain BM25 over every real server's tools at once. */
function retrieval(): BenchResult[] {
  const catalogs = fixture("toolCatalogs.json") as Catalogs;
  const { queries } = fixture("searchQueries.json") as Queries;
  const events: ToolledgerEvent[] = [];
  for (const s of catalogs.servers) {
    events.push({
      type: "ExtensionAdded",
      v,
      name: s.key,
      kind: "stdio",
      exposeUnprefixed: false,
      hidden: false,
      availableTools: [],
      configFingerprint: s.key,
    });
  }
  for (const s of catalogs.servers)
    events.push({
      type: "ToolsFetched",
      v,
      extension: s.key,
      startedAtVersion: catalogs.servers.length,
      tools: s.tools,
    });
  const state = withDeferral(events, "search");
  const served = listTools(state).map((t) => ({ name: t.wireName, tool: t.raw as McpTool }));
  const bm25 = new PlainBm25(served);
  const rows: BenchResult[] = [];
  for (const [id, half] of [
    ["13f", "tuned"],
    ["13g", "held-out"],
  ] as const) {
    const perServer = new Map<string, { ours: number; bm25: number; n: number }>();
    let ours = 0;
    let plain = 0;
    const set = queries.filter((q) => q.half === half);
    for (const q of set) {
      const r = searchTools(state, q.query, { limit: 5 });
      const mine = r.ok ? r.hits.map((h) => h.name) : [];
      const theirs = bm25.search(q.query, 5);
      const recall = (names: string[]) =>
        q.relevant.filter((x) => names.includes(x)).length / q.relevant.length;
      const server = q.relevant[0]!.split("__")[0]!;
      const row = perServer.get(server) ?? { ours: 0, bm25: 0, n: 0 };
      row.ours += recall(mine);
      row.bm25 += recall(theirs);
      row.n++;
      perServer.set(server, row);
      ours += recall(mine);
      plain += recall(theirs);
    }
    const byServer = Object.fromEntries(
      [...perServer].map(([k, r]) => [
        k,
        { queries: r.n, search: round(r.ours / r.n), bm25: round(r.bm25 / r.n) },
      ]),
    );
    rows.push(
      measured({
        id,
        name: `recall@5, ${set.length} ${half} queries on ${served.length} real tools (${catalogs.servers.length} servers)`,
        unit: "recall",
        toolledger: round(ours / set.length),
        baseline: round(plain / set.length),
        baselineName: "plain BM25, same fields",
        target: { op: ">=", value: 1.1 },
        note: Object.entries(byServer)
          .map(([k, r]) => `${k} ${r.search}/${r.bm25}`)
          .join(", "),
        details: { byServer },
      }),
    );
  }
  return rows;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
