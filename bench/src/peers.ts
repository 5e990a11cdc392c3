import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import type { ToolledgerEvent } from "@toolledger/core";
import { type BenchResult, errorLine, measured, notRun } from "./benchResult.js";
import { gatewayServeArgs, SERVERS, TOOLS_PER_SERVER } from "./gatewayOverhead.js";
import { interleave, timeMsAsync } from "./interleave.js";
import { callPlan } from "./makeTools.js";
import { alternateBlocks, httpClient, sseClient, untilListed, upstreamArgs } from "./mcpClients.js";
import { freePort, startProcess, until, waitForLine } from "./processes.js";
import { scratchDir } from "./scratchDir.js";
import { BATCH, storeAppend } from "./sqliteAppendLoad.js";
import { median, percentile } from "./stats.js";

const ahead = { op: "<", value: 1 } as const;
const plan = callPlan(0, TOOLS_PER_SERVER);
const planned = (i: number) => plan[i % plan.length]!;

// Peers are loaded by name at run time: one that is not installed is reported, not fatal.
const load = (name: string): Promise<Record<string, unknown>> => import(name);

/** 6a: the SQLite append of benchmark 4 (durability full) against emmett-sqlite's. */
async function emmett(events: readonly ToolledgerEvent[], rounds: number): Promise<BenchResult> {
  const name = "append 100k events, batches of 100, vs emmett-sqlite";
  const peer = "@event-driven-io/emmett-sqlite appendToStream";
  let emmettSqlite: Record<string, unknown>;
  try {
    emmettSqlite = await load("@event-driven-io/emmett-sqlite");
  } catch (error) {
    return notRun(
      "6a",
      name,
      peer,
      `not installed: it needs the native sqlite3 package, whose build pnpm refuses unless pnpm-workspace.yaml allowBuilds lists sqlite3 (ERR_PNPM_IGNORED_BUILDS); allowed, a fresh install compiles sqlite3 from source for ~2m40s here (${(error as { code?: string }).code ?? errorLine(error)})`,
      ahead,
    );
  }
  const store = await import("@toolledger/store-sqlite");
  const getStore = emmettSqlite.getSQLiteEventStore as (o: unknown) => {
    appendToStream(stream: string, events: unknown[], options?: unknown): Promise<unknown>;
    close?: () => Promise<void>;
  };
  const tmp = scratchDir("emmett");
  try {
    let n = 0;
    const r = await interleave(
      { rounds, warmup: 0 },
      async () =>
        events.length /
        ((await timeMsAsync(() =>
          storeAppend(store, join(tmp.dir, `t${n++}.db`), "full", events),
        )) /
          1000),
      async () => {
        const s = getStore({
          fileName: join(tmp.dir, `e${n++}.db`),
          schema: { autoMigration: "CreateOrUpdate" },
        });
        const ms = await timeMsAsync(async () => {
          for (let from = 0; from < events.length; from += BATCH) {
            const batch = events.slice(from, from + BATCH).map((e) => ({ type: e.type, data: e }));
            await s.appendToStream("session-1", batch, { expectedStreamVersion: BigInt(from) });
          }
        });
        await s.close?.();
        return events.length / (ms / 1000);
      },
    );
    // Throughput: invert so that the ratio reads as time (below 1 = toolledger ahead).
    return measured({
      id: "6a",
      name,
      unit: "s / 100k events",
      toolledger: 100_000 / r.toolledgerMedian,
      baseline: 100_000 / r.baselineMedian,
      baselineName: peer,
      target: ahead,
      note: "both WAL, synchronous FULL (emmett's default)",
      details: { samples: r },
    });
  } finally {
    tmp.remove();
  }
}

/** 6b/6c: the gateway (streamable HTTP) against mcp-hub (HTTP+SSE) over the same 5 servers. */
async function mcpHub(): Promise<BenchResult[]> {
  const listName = "tools/list, 5 × 100 tools, gateway (HTTP) vs mcp-hub";
  const callName = "tools/call through the aggregate, gateway (HTTP) vs mcp-hub";
  const peer = "mcp-hub 4 (HTTP+SSE /mcp)";
  let hubCli: string;
  try {
    hubCli = join(fileURLToPath(import.meta.resolve("mcp-hub")), "..", "cli.js");
  } catch (error) {
    const why = `not installed: ${errorLine(error)}`;
    return [notRun("6b", listName, peer, why, ahead), notRun("6c", callName, peer, why, ahead)];
  }
  const tmp = scratchDir("hub");
  const clients: Client[] = [];
  const stops: (() => Promise<void>)[] = [];
  try {
    const hubConfig = join(tmp.dir, "hub.json");
    const mcpServers: Record<string, unknown> = {};
    for (let i = 0; i < SERVERS; i++)
      mcpServers[`upstream${i}`] = {
        command: process.execPath,
        args: upstreamArgs(i, TOOLS_PER_SERVER),
      };
    writeFileSync(hubConfig, JSON.stringify({ mcpServers }));
    const port = await freePort();
    const hub = startProcess(process.execPath, [
      hubCli,
      "--port",
      String(port),
      "--config",
      hubConfig,
    ]);
    stops.push(hub.stop);
    const gateway = startProcess(
      process.execPath,
      gatewayServeArgs(tmp.dir, SERVERS, "--http", "0"),
    );
    stops.push(gateway.stop);
    const url = (await waitForLine(gateway, /^(http:\/\/\S+)$/m, 60_000))[1]!;
    const viaGateway = await httpClient(url);
    clients.push(viaGateway);
    // The same gateway writing each call's start behind (L1 relaxed): mcp-hub records nothing,
    // so this is the like-for-like hop; 6c (the default) pays one durable commit per call more.
    const relaxedGateway = startProcess(
      process.execPath,
      gatewayServeArgs(tmp.dir, SERVERS, "--http", "0", "--call-durability", "relaxed"),
    );
    stops.push(relaxedGateway.stop);
    const relaxedUrl = (await waitForLine(relaxedGateway, /^(http:\/\/\S+)$/m, 60_000))[1]!;
    const viaRelaxed = await httpClient(relaxedUrl);
    clients.push(viaRelaxed);
    const expected = SERVERS * TOOLS_PER_SERVER;
    const viaHub = await until(60_000, async () => {
      const c = await sseClient(`http://127.0.0.1:${port}/mcp`);
      if ((await c.listTools()).tools.length >= expected) return c;
      await c.close();
      return undefined;
    }).catch((error: unknown) => {
      throw new Error(
        `mcp-hub did not serve ${expected} tools: ${errorLine(error)}; output: ${hub.output().slice(-300)}`,
      );
    });
    clients.push(viaHub);
    // D3: the gateway hides the app-only tools (1 in 25).
    await untilListed(viaGateway, SERVERS * (TOOLS_PER_SERVER - TOOLS_PER_SERVER / 25));
    await untilListed(viaRelaxed, SERVERS * (TOOLS_PER_SERVER - TOOLS_PER_SERVER / 25));

    const list = () => viaGateway.listTools();
    const hubList = () => viaHub.listTools();
    await alternateBlocks(10, 5, list, hubList);
    const lists = await alternateBlocks(100, 10, list, hubList);
    const call = (i: number) =>
      viaGateway.callTool({ name: `upstream0__${planned(i).name}`, arguments: planned(i).args });
    const hubCall = (i: number) =>
      viaHub.callTool({ name: `upstream0__${planned(i).name}`, arguments: planned(i).args });
    const relaxedCall = (i: number) =>
      viaRelaxed.callTool({ name: `upstream0__${planned(i).name}`, arguments: planned(i).args });
    const first = (await call(0)) as { isError?: boolean };
    if (first.isError) throw new Error("gateway call failed");
    await alternateBlocks(50, 25, call, hubCall);
    await alternateBlocks(50, 25, relaxedCall, hubCall);
    // The default gateway, the relaxed one and mcp-hub in turn, on the same stretch of load.
    const calls = { a: [] as number[], b: [] as number[] };
    const relaxedCalls = { a: [] as number[], b: [] as number[] };
    for (let k = 0; k < 5; k++) {
      const g = await alternateBlocks(100, 50, call, hubCall);
      const r = await alternateBlocks(100, 50, relaxedCall, hubCall);
      calls.a.push(...g.a);
      calls.b.push(...g.b, ...r.b);
      relaxedCalls.a.push(...r.a);
    }
    relaxedCalls.b = calls.b;
    return [
      measured({
        id: "6b",
        name: listName,
        unit: "ms p50",
        toolledger: percentile(lists.a, 50),
        baseline: percentile(lists.b, 50),
        baselineName: peer,
        target: ahead,
        note: "gateway hides 20 app-only tools (D3), mcp-hub lists all 500",
        details: { n: lists.a.length },
      }),
      measured({
        id: "6c",
        name: callName,
        unit: "ms p50",
        toolledger: percentile(calls.a, 50),
        baseline: percentile(calls.b, 50),
        baselineName: peer,
        target: ahead,
        note: `write-ahead (the default: each call's start durable before it goes upstream, SQLite synchronous=FULL; mcp-hub records nothing); p99 ${percentile(calls.a, 99).toFixed(2)} vs ${percentile(calls.b, 99).toFixed(2)} ms; 6cr is the same gateway with its starts written behind`,
        details: { n: calls.a.length },
      }),
      measured({
        id: "6cr",
        name: `${callName}, --call-durability relaxed`,
        unit: "ms p50",
        toolledger: percentile(relaxedCalls.a, 50),
        baseline: percentile(relaxedCalls.b, 50),
        baselineName: peer,
        note: `the hop alone, like for like (neither writes anything before the call goes upstream); p99 ${percentile(relaxedCalls.a, 99).toFixed(2)} vs ${percentile(relaxedCalls.b, 99).toFixed(2)} ms`,
        details: { n: relaxedCalls.a.length },
      }),
    ];
  } catch (error) {
    const why = `failed: ${errorLine(error)}`;
    return [notRun("6b", listName, peer, why, ahead), notRun("6c", callName, peer, why, ahead)];
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    for (const stop of stops) await stop();
    tmp.remove();
  }
}

/** 6d/6e: the session's aggregation of 5 servers against langchain's MultiServerMCPClient. */
async function langchain(rounds: number): Promise<BenchResult[]> {
  const startName = "connect 5 servers and aggregate 500 tools, session vs langchain";
  const callName = "tools/call through the aggregate (in process), session vs langchain";
  const peer = "@langchain/mcp-adapters MultiServerMCPClient";
  let lc: Record<string, unknown>;
  try {
    lc = await load("@langchain/mcp-adapters");
  } catch (error) {
    const why = `not installed: ${errorLine(error)}`;
    return [notRun("6d", startName, peer, why, ahead), notRun("6e", callName, peer, why, ahead)];
  }
  type LcTool = { name: string; invoke(args: unknown): Promise<unknown> };
  type LcClient = { getTools(): Promise<LcTool[]>; close(): Promise<void> };
  const MultiServer = lc.MultiServerMCPClient as new (config: unknown) => LcClient;
  const adapters = await import("@toolledger/adapters-mcp");
  const { listTools } = await import("@toolledger/core");
  const configs = Array.from({ length: SERVERS }, (_, i) => ({
    type: "stdio" as const,
    name: `upstream${i}`,
    command: process.execPath,
    args: upstreamArgs(i, TOOLS_PER_SERVER),
  }));
  const lcConfig = {
    mcpServers: Object.fromEntries(
      configs.map((c) => [c.name, { transport: "stdio", command: c.command, args: c.args }]),
    ),
    prefixToolNameWithServerName: true,
  };
  try {
    let toolledgerTools = 0;
    let langchainTools = 0;
    const start = await interleave(
      { rounds, warmup: 1 },
      async () => {
        let session: Awaited<ReturnType<typeof adapters.openStandaloneConversation>> | undefined;
        const ms = await timeMsAsync(async () => {
          session = await adapters.openStandaloneConversation();
          const added = await session.addExtensions(configs);
          const failed = added.find((a) => !a.ok);
          if (failed) throw new Error(failed.error?.message ?? "an extension failed to start");
          toolledgerTools = listTools(session.state).length;
        });
        await session?.close();
        return ms;
      },
      async () => {
        const client = new MultiServer(lcConfig);
        const ms = await timeMsAsync(async () => {
          langchainTools = (await client.getTools()).length;
        });
        await client.close();
        return ms;
      },
    );

    const session = await adapters.openStandaloneConversation();
    await session.addExtensions(configs);
    const client = new MultiServer(lcConfig);
    try {
      const lcTools = new Map((await client.getTools()).map((t) => [t.name, t]));
      const name = (i: number) => `upstream0__${planned(i).name}`;
      const lcTool = (i: number) => {
        const t = lcTools.get(name(i));
        if (!t)
          throw new Error(
            `langchain has no tool ${name(i)}; it has ${[...lcTools.keys()].slice(0, 3).join(", ")}…`,
          );
        return t;
      };
      const viaSession = async (i: number) => {
        const r = await session.callTool(name(i), planned(i).args);
        if (!r.ok) throw new Error(r.error.message);
      };
      const viaLangchain = (i: number) => lcTool(i).invoke(planned(i).args);
      await alternateBlocks(50, 25, viaSession, viaLangchain);
      const calls = await alternateBlocks(500, 50, viaSession, viaLangchain);
      return [
        measured({
          id: "6d",
          name: startName,
          unit: "ms",
          toolledger: start.toolledgerMedian,
          baseline: start.baselineMedian,
          baselineName: peer,
          target: ahead,
          note: `5 child processes each side; ${toolledgerTools} vs ${langchainTools} tools registered`,
          details: { samples: start },
        }),
        measured({
          id: "6e",
          name: callName,
          unit: "ms p50",
          toolledger: median(calls.a),
          baseline: median(calls.b),
          baselineName: `${peer} tool.invoke`,
          target: ahead,
          note: `p99 ${percentile(calls.a, 99).toFixed(2)} vs ${percentile(calls.b, 99).toFixed(2)} ms`,
          details: { n: calls.a.length },
        }),
      ];
    } finally {
      await client.close();
      await session.close();
    }
  } catch (error) {
    const why = `failed: ${errorLine(error)}`;
    return [notRun("6d", startName, peer, why, ahead), notRun("6e", callName, peer, why, ahead)];
  }
}

/** Benchmark 6: toolledger against the peers that install here, side by side in one run. */
export async function peers(
  events: readonly ToolledgerEvent[],
  rounds: number,
): Promise<BenchResult[]> {
  return [await emmett(events, rounds), ...(await mcpHub()), ...(await langchain(rounds))];
}
