import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  publishedServer,
  resultText,
  type SdkClientOfServe,
  sdkClientOverHttp,
  serveOverStdio,
} from "../../testing/sdkServeClient.js";
import { cleanEnv, runCli, tempDir } from "../../testing/spawnCli.js";
import { startServeHttp } from "../../testing/startServe.js";

// Issue 24 (S1/S2) through the built `toolledger serve` and the MCP SDK's own client, with
// two published servers from npm (server-everything, server-memory): search mode serves
// `search_tools` and `enable_tools` only, a search finds a tool from a task in the user's
// words, enable_tools loads it, the call reaches the real server; every search is an event
// that `toolledger replay` runs again and finds the same.

interface CallResult {
  content?: unknown;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

describe("search mode through `toolledger serve` (S1, S2)", () => {
  let dir: string;
  let served: SdkClientOfServe;
  const call = async (name: string, args: Record<string, unknown>) =>
    (await served.client.callTool({ name, arguments: args })) as CallResult;

  beforeAll(async () => {
    dir = tempDir();
    served = await serveOverStdio(
      dir,
      {
        mcpServers: {
          everything: publishedServer("everything", dir),
          memory: publishedServer("memory", dir),
        },
      },
      ["--deferral", "search"],
    );
  }, 90_000);
  afterAll(async () => {
    await served?.close();
  });

  test("the model is served the two built-ins, always loaded, and a prompt of servers and counts", async () => {
    const { tools } = await served.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["enable_tools", "search_tools"]);
    for (const t of tools) expect(t._meta?.["anthropic/alwaysLoad"]).toBe(true);
    const search = tools.find((t) => t.name === "search_tools")!;
    expect(search.inputSchema.required).toEqual(["query"]);
    // Search mode never lists every name: a count per server and topics instead.
    expect(search.description).toMatch(/- everything: \d+ tools/);
    expect(search.description).toMatch(/- memory: \d+ tools/);
    expect(search.description).not.toContain("memory__create_entities");
    // The handshake's instructions are fixed before the servers have listed (G1), so the
    // description is where a client reliably shows the section to the model.
  });

  test("search, enable from the results, call: the memory server stores the entity", async () => {
    const searched = await call("search_tools", {
      query: "remember that Ada is a mathematician in my knowledge graph",
    });
    expect(searched.isError).toBeFalsy();
    const names = found(searched);
    expect(names.length).toBeGreaterThan(0);
    expect(names.length).toBeLessThanOrEqual(5);
    expect(names).toContain("memory__create_entities");
    expect(resultText(searched)).toMatch(/- memory__create_entities: /);
    // Not enabled yet: the call is refused as deferred (D9).
    const early = await call("memory__create_entities", { entities: [] });
    expect(early.isError).toBe(true);

    const enabled = await call("enable_tools", { names: ["memory__create_entities"] });
    expect(enabled.isError).toBeFalsy();
    expect(await served.names()).toEqual([
      "enable_tools",
      "memory__create_entities",
      "search_tools",
    ]);
    const created = await call("memory__create_entities", {
      entities: [{ name: "Ada", entityType: "person", observations: ["mathematician"] }],
    });
    expect(created.isError).toBeFalsy();
    expect(resultText(created)).toContain("Ada");
    // An enabled tool is no longer deferred, so no longer found.
    const again = await call("search_tools", { query: "create entities in the knowledge graph" });
    expect(found(again)).not.toContain("memory__create_entities");
  });

  test("a /regex/ query, a limit, and a pattern that would backtrack forever in RegExp", async () => {
    const regex = await call("search_tools", { query: "/^memory__.*relation/", limit: 10 });
    expect(found(regex)).toEqual(["memory__create_relations", "memory__delete_relations"]);
    const limited = await call("search_tools", { query: "/./", limit: 3 });
    expect(found(limited)).toHaveLength(3);
    // (a+)+$ over long text: bounded by the automaton and its step budget, so it answers.
    const evil = await call("search_tools", { query: "/(a+)+$/" });
    expect(evil.isError).toBeFalsy();
  });

  test("bad queries are answered with what to fix, and recorded too", async () => {
    const bad = await call("search_tools", { query: "/(unclosed/" });
    expect(bad.isError).toBe(true);
    expect(resultText(bad)).toMatch(/\/\(unclosed\/: /);
    const empty = await call("search_tools", { query: "   " });
    expect(empty.isError).toBe(true);
    expect(resultText(empty)).toContain("the query is empty");
    const wrong = await call("search_tools", { q: "x" });
    expect(wrong.isError).toBe(true);
    expect(resultText(wrong)).toContain('search_tools takes {"query"');
  });

  test("replay shows every search with its results, each reproduced (S2)", async () => {
    await served.close();
    const db = join(dir, "s.db");
    const sessions = await runCli(["sessions", "--db", db, "--json"], {
      cwd: dir,
      env: cleanEnv(dir),
    });
    expect(sessions.code).toBe(0);
    const conv = (JSON.parse(sessions.stdout) as { session: string; kind: string }[]).find(
      (s) => s.kind === "conversation",
    );
    expect(conv).toBeDefined();
    const replay = await runCli(["replay", conv!.session, "--db", db, "--jsonl"], {
      cwd: dir,
      env: cleanEnv(dir),
    });
    expect(replay.code).toBe(0);
    const searches = replay.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; changes: Record<string, unknown>[] })
      .filter((s) => s.type === "ToolsSearched")
      .map((s) => s.changes[0]!);
    // Two word searches, three regex searches, two refused by the core (the bad
    // arguments never reached it: that call is refused before any search).
    expect(searches).toHaveLength(7);
    for (const s of searches) expect(s).toMatchObject({ kind: "searched", reproduced: true });
    expect(searches[0]!.results).toContain("memory__create_entities");
    expect(searches[2]).toMatchObject({
      query: "/^memory__.*relation/",
      results: ["memory__create_relations", "memory__delete_relations"],
    });
    const human = await runCli(["replay", conv!.session, "--db", db], {
      cwd: dir,
      env: cleanEnv(dir),
    });
    expect(human.stdout).toContain(
      'search "/^memory__.*relation/" → memory__create_relations, memory__delete_relations (reproduced)',
    );
    expect(human.stdout).toContain("7 searches, all reproduced");
    // explain says, per search, why a tool was or was not among the results (S2).
    const explained = await runCli(
      ["explain", "memory__create_entities", "--session", conv!.session, "--db", db],
      { cwd: dir, env: cleanEnv(dir) },
    );
    expect(explained.code).toBe(0);
    expect(explained.stdout).toContain("7 searches recorded, 1 returned it");
    expect(explained.stdout).toMatch(/"remember that Ada [^"]*" \(\d+\): returned it, ranked \d/);
    // Enabled by then: eager, so the later searches do not look at it.
    expect(explained.stdout).toContain('"create entities in the knowledge graph" (');
    expect(explained.stdout).toContain("it was eager then, and only deferred tools are searched");
    const other = await runCli(
      ["explain", "everything__echo", "--session", conv!.session, "--db", db],
      { cwd: dir, env: cleanEnv(dir) },
    );
    expect(other.stdout).toContain("no word of the query, nor a synonym, is in its name");
    // Issue 34: a /regex/ search is explained as a pattern, not as words.
    expect(other.stdout).toMatch(
      /"\/\^memory__\.\*relation\/" \(\d+\): not returned: the pattern matches nothing in its name, title, description or arguments/,
    );
    expect(other.stdout).not.toMatch(/"\/\^memory__\.\*relation\/" \(\d+\): not returned: no word/);
    const builtin = await runCli(
      ["explain", "search_tools", "--session", conv!.session, "--db", db],
      { cwd: dir, env: cleanEnv(dir) },
    );
    expect(builtin.stdout).toContain("search_tools is the built-in search of deferred tools");
    expect(builtin.stdout).toMatch(
      /7 search\(es\) recorded: [45] returned tools, [01] found nothing, 2 refused/,
    );
  });
});

describe("deferral modes and their errors (D1, S1)", () => {
  test("GOOSE_TOOL_DEFERRAL=search stays a configuration error (D1)", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { memory: publishedServer("memory", dir) } }));
    const r = await runCli(["tools", "--config", file], {
      cwd: dir,
      env: cleanEnv(dir, { GOOSE_TOOL_DEFERRAL: "search" }),
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("GOOSE_TOOL_DEFERRAL");
    expect(r.stderr).toContain('use "lookup"');
  }, 60_000);

  test("--deferral names every mode when it is wrong; --deferral-budget wants a number", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { memory: publishedServer("memory", dir) } }));
    const bad = await runCli(["tools", "--config", file, "--deferral", "serach"], {
      cwd: dir,
      env: cleanEnv(dir),
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"off", "lookup", "search", "auto"');
    const budget = await runCli(
      ["tools", "-c", file, "--deferral", "auto", "--deferral-budget", "lots"],
      {
        cwd: dir,
        env: cleanEnv(dir),
      },
    );
    expect(budget.code).toBe(2);
    expect(budget.stderr).toContain("--deferral-budget");
    const listed = await runCli(
      ["tools", "-c", file, "--deferral", "auto", "--deferral-budget", "20"],
      { cwd: dir, env: cleanEnv(dir) },
    );
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/memory__read_graph +memory +deferred/);
    expect(listed.stderr).toContain("deferral auto (search now)");
  });

  test("auto is lookup while the names fit the budget, search above it", async () => {
    const dir = tempDir();
    const config = { mcpServers: { memory: publishedServer("memory", dir) } };
    const small = await serveOverStdio(dir, config, ["--deferral", "auto"]);
    try {
      const { tools } = await small.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["enable_tools"]);
      expect(tools[0]!.description).toContain("memory__create_entities");
    } finally {
      await small.close();
    }
    const dir2 = tempDir();
    const tight = await serveOverStdio(dir2, config, [
      "--deferral",
      "auto",
      "--deferral-budget",
      "20",
    ]);
    try {
      expect(await tight.names()).toEqual(["enable_tools", "search_tools"]);
      const r = (await tight.client.callTool({
        name: "search_tools",
        arguments: { query: "read the whole knowledge graph" },
      })) as CallResult;
      expect(found(r)).toContain("memory__read_graph");
    } finally {
      await tight.close();
    }
  }, 90_000);

  test("the config file's toolledger.deferral sets the mode in every format", async () => {
    const dir = tempDir();
    const served = await serveOverStdio(dir, {
      toolledger: { deferral: "search" },
      mcpServers: { memory: publishedServer("memory", dir) },
    });
    try {
      expect(await served.names()).toEqual(["enable_tools", "search_tools"]);
    } finally {
      await served.close();
    }
  }, 60_000);
});

describe("search mode over streamable HTTP: each client its own conversation (C2, S1)", () => {
  test("two SDK clients search; one enables; the other still finds the tool deferred", async () => {
    const dir = tempDir();
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { memory: publishedServer("memory", dir) } }),
    );
    const serve = await startServeHttp(
      ["--config", config, "--db", join(dir, "s.db"), "--deferral", "search"],
      dir,
    );
    const a = await sdkClientOverHttp(serve.url, serve.stderr);
    const b = await sdkClientOverHttp(serve.url, serve.stderr);
    try {
      const call = (c: SdkClientOfServe, name: string, args: Record<string, unknown>) =>
        c.client.callTool({ name, arguments: args }) as Promise<CallResult>;
      expect(found(await call(a, "search_tools", { query: "delete a relation" }))).toContain(
        "memory__delete_relations",
      );
      await call(a, "enable_tools", { names: ["memory__delete_relations"] });
      await a.until((n) => n.includes("memory__delete_relations"), "A's enabled tool");
      expect(found(await call(a, "search_tools", { query: "delete a relation" }))).not.toContain(
        "memory__delete_relations",
      );
      expect(await b.names()).toEqual(["enable_tools", "search_tools"]);
      expect(found(await call(b, "search_tools", { query: "delete a relation" }))).toContain(
        "memory__delete_relations",
      );
    } finally {
      await a.close();
      await b.close();
      await serve.stop();
    }
  }, 90_000);
});

function found(r: CallResult): string[] {
  return ((r.structuredContent?.tools ?? []) as { name: string }[]).map((t) => t.name);
}
