import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// The SDK 1 client (devDependency): a real legacy client of the gateway, as deployed hosts are.
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { StoredEvent } from "@toolledger/core";
import { describe, expect, test } from "vitest";
import {
  resultText,
  sdkClientOverHttp,
  serveOverStdio,
  shippedServer,
} from "../../testing/sdkServeClient.js";
import { CLI, cleanEnv, runCli, tempDir } from "../../testing/spawnCli.js";
import { startServeHttp } from "../../testing/startServe.js";
import { startTestServer, type TestServer } from "../../testing/startTestServer.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { openStore } from "../session/openStore.js";

// V1 (issue 36, upstream side): the built `serve` reaches each server in its own era — a
// modern-only one (MCP 2026-07-28, 2025 refused), a dual-era one and a legacy one — for
// legacy clients (the SDK 2 default client and the SDK 1 client), over stdio and HTTP; each
// lists, calls and sees a tool added upstream; the verdict is recorded once per server.

/** What a test does with a client of serve, whichever SDK it is. */
interface Downstream {
  names: () => Promise<string[]>;
  call: (name: string, args?: Record<string, unknown>) => Promise<string>;
  /** Lists now and after each tools/list_changed until `done` holds. */
  until: (done: (names: string[]) => boolean, what: string) => Promise<string[]>;
  close: () => Promise<void>;
}

/** The SDK 1 client (2025-11-25 only) over stdio or HTTP, as a Downstream. */
async function v1Client(transport: V1Stdio | V1Http): Promise<Downstream> {
  const client = new V1Client({ name: "sdk1-client", version: "1.0.0" });
  const waiters = new Set<() => void>();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    for (const w of waiters) w();
  });
  await client.connect(transport);
  const names = async () => {
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      all.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return all.sort();
  };
  return {
    names,
    call: async (name, args = {}) =>
      resultText((await client.callTool({ name, arguments: args })) as never),
    until: (done, what) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`gave up waiting for ${what}`)), 20_000);
        const check = () =>
          void names().then((n) => {
            if (!done(n)) return;
            clearTimeout(timer);
            waiters.delete(check);
            resolve(n);
          }, reject);
        waiters.add(check);
        check();
      }),
    close: () => client.close(),
  };
}

/** The SDK 2 default client (legacy mode) as a Downstream. */
function v2(c: Awaited<ReturnType<typeof serveOverStdio>>): Downstream {
  return {
    names: c.names,
    call: async (name, args = {}) =>
      resultText(await c.client.callTool({ name, arguments: args }, { timeout: 30_000 })),
    until: c.until,
    close: c.close,
  };
}

/** Every event of the database, in order. */
async function events(db: string): Promise<StoredEvent[]> {
  const store = await openStore(resolveDatabasePath(db, {}, "/", "/"), "read");
  try {
    return await store.readAll({ after: 0, limit: 100_000 });
  } finally {
    await store.close();
  }
}

const eras = async (db: string) =>
  (await events(db))
    .map((e) => e.event as Record<string, unknown>)
    .filter((e) => e.type === "ExtensionEraDetected");

/** List, call and see a tool added upstream, for each of the three servers. */
async function exercise(c: Downstream): Promise<void> {
  await c.until(
    (n) => ["m__echo", "d__echo", "l__add_tool"].every((t) => n.includes(t)),
    "every server listed",
  );
  expect(await c.call("m__echo", { value: "hi" })).toBe("modern-only echo:hi");
  expect(await c.call("d__echo", { value: "hi" })).toBe("dual-era echo:hi");
  // The upstream hop of each: the dual-era server is reached in the modern era (auto).
  expect(await c.call("m__era")).toBe("modern");
  expect(await c.call("d__era")).toBe("modern");
  for (const s of ["m", "d", "l"]) {
    expect(await c.call(`${s}__add_tool`, { name: `fresh_${s}` })).toBe(`added fresh_${s}`);
    await c.until((n) => n.includes(`${s}__fresh_${s}`), `${s}__fresh_${s} in the list`);
    expect(await c.call(`${s}__fresh_${s}`)).toBe(`fresh_${s} ran`);
  }
}

/** G1 through a modern upstream: its prompts (prefixed) and resources, listed and read. */
async function promptsAndResources(
  client: Awaited<ReturnType<typeof serveOverStdio>>["client"],
): Promise<void> {
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  expect(prompts).toEqual(expect.arrayContaining(["m__greet", "d__greet"]));
  const got = await client.getPrompt({ name: "m__greet", arguments: { who: "ann" } });
  expect(got.messages[0]?.content).toEqual({ type: "text", text: "modern-only greets ann" });
  const resources = (await client.listResources()).resources.map((r) => r.uri);
  expect(resources).toEqual(expect.arrayContaining(["modern-only://info", "dual-era://info"]));
  const read = await client.readResource({ uri: "modern-only://info" });
  expect(read.contents[0]).toMatchObject({ text: "modern-only info (modern)" });
}

/** The recorded verdicts: modern by server/discover for m and d, legacy by initialize for l. */
async function expectVerdicts(db: string): Promise<void> {
  const byServer = Object.fromEntries((await eras(db)).map((e) => [e.extension, e]));
  expect(byServer.m).toMatchObject({
    era: "modern",
    how: "discover",
    protocolVersion: "2026-07-28",
    supportedVersions: ["2026-07-28"],
  });
  expect(byServer.d).toMatchObject({
    era: "modern",
    how: "discover",
    protocolVersion: "2026-07-28",
  });
  expect(byServer.l).toMatchObject({
    era: "legacy",
    how: "initialize",
    protocolVersion: "2025-11-25",
    supportedVersions: [],
  });
  expect(byServer.m?.authContext).toBeUndefined();
}

const stdioServers = (dir: string) => ({
  // Its tools come in pages of two: every page is read.
  m: shippedServer("modernOnly", "--log", join(dir, "m.log"), "--page-size", "2"),
  d: shippedServer("dualEra"),
  l: shippedServer("changing"),
});

async function httpServers(): Promise<{ config: object; stop: () => Promise<void> }> {
  const started: TestServer[] = [
    await startTestServer("modernOnly", "--http", "--page-size", "2"),
    await startTestServer("dualEra", "--http"),
    await startTestServer("http"),
  ];
  const [m, d, l] = started.map((s) => ({ url: s.url }));
  return {
    config: { m, d, l },
    stop: async () => {
      await Promise.all(started.map((s) => s.stop()));
    },
  };
}

const lines = (file: string, word: string) => {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.startsWith(word)).length;
  } catch {
    return 0;
  }
};

describe("V1 upstream eras through `toolledger serve`: modern-only, dual-era and legacy servers for legacy clients", () => {
  test("V1 stdio: the SDK 2 default client and the SDK 1 client list, call and see added tools; each server's era is recorded once", async () => {
    const dir = tempDir();
    const db = join(dir, "s.db");
    const c = await serveOverStdio(dir, { mcpServers: stdioServers(dir) });
    try {
      await exercise(v2(c));
      await promptsAndResources(c.client);
    } finally {
      await c.close();
    }
    await expectVerdicts(db);
    // A sibling process answered the probe, then the session's own process started (SDK).
    expect(lines(join(dir, "m.log"), "start")).toBe(2);
    const v1dir = join(dir, "v1");
    mkdirSync(v1dir);
    const file = join(v1dir, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: stdioServers(v1dir) }));
    const v1 = await v1Client(
      new V1Stdio({
        command: process.execPath,
        args: [CLI, "serve", "--config", file, "--db", join(v1dir, "s.db")],
        env: cleanEnv(v1dir),
        cwd: v1dir,
        stderr: "pipe",
      }),
    );
    try {
      await exercise(v1);
    } finally {
      await v1.close();
    }
    await expectVerdicts(join(v1dir, "s.db"));
  }, 120_000);

  test("V1 HTTP: upstreams over streamable HTTP behind `serve --http`, for the SDK 2 default client and the SDK 1 client", async () => {
    const servers = await httpServers();
    const dir = tempDir();
    const db = join(dir, "s.db");
    const file = join(dir, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: servers.config }));
    const serve = await startServeHttp(["--config", file, "--db", db], dir);
    try {
      const c = await sdkClientOverHttp(serve.url, serve.stderr);
      try {
        await exercise(v2(c));
        await promptsAndResources(c.client);
      } finally {
        await c.close();
      }
      const v1 = await v1Client(new V1Http(new URL(serve.url)));
      try {
        // The tools added by the first client are there already; add others.
        await v1.until((n) => n.includes("m__fresh_m"), "the first client's tool");
        expect(await v1.call("m__echo", { value: "v1" })).toBe("modern-only echo:v1");
        expect(await v1.call("m__add_tool", { name: "second" })).toBe("added second");
        await v1.until((n) => n.includes("m__second"), "m__second");
        expect(await v1.call("d__add_tool", { name: "second" })).toBe("added second");
        await v1.until((n) => n.includes("d__second"), "d__second");
        expect(await v1.call("l__add_tool", { name: "second" })).toBe("added second");
        await v1.until((n) => n.includes("l__second"), "l__second");
      } finally {
        await v1.close();
      }
    } finally {
      await serve.stop();
      await servers.stop();
    }
    await expectVerdicts(db);
  }, 120_000);

  test("V1 explain and doctor say which era each tool's server speaks", async () => {
    const dir = tempDir();
    const db = join(dir, "s.db");
    const c = await serveOverStdio(dir, { mcpServers: stdioServers(dir) });
    try {
      await c.until((n) => ["m__echo", "d__echo", "l__ping"].every((t) => n.includes(t)), "all");
      await c.client.callTool({ name: "m__echo", arguments: { value: "x" } });
    } finally {
      await c.close();
    }
    const env = cleanEnv(dir);
    const explain = async (tool: string) => {
      const r = await runCli(["explain", tool, "--db", db], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    expect(await explain("m__echo")).toContain(
      "its server m speaks MCP 2026-07-28 (modern era: server/discover offered 2026-07-28)",
    );
    expect(await explain("l__ping")).toContain(
      "its server l speaks MCP 2025-11-25 (legacy era: no server/discover; initialize answered)",
    );
    const home = env.HOME!;
    const claude = join(home, ".config", "Claude");
    mkdirSync(claude, { recursive: true });
    writeFileSync(
      join(claude, "claude_desktop_config.json"),
      JSON.stringify({
        mcpServers: {
          ...stdioServers(dir),
          p: { ...shippedServer("modernOnly"), protocol_era: "legacy" },
        },
      }),
    );
    const r = await runCli(["doctor", "--json"], { cwd: dir, env, timeoutMs: 120_000 });
    const servers = Object.fromEntries(
      (
        JSON.parse(r.stdout) as { findings: { check: string; subject: string; message: string }[] }
      ).findings
        .filter((f) => f.check === "server")
        .map((f) => [f.subject.split("/").at(-1), f.message]),
    );
    expect(servers.m).toMatch(/; speaks MCP 2026-07-28 \(modern era, by server\/discover\)$/);
    expect(servers.d).toMatch(/; speaks MCP 2026-07-28 \(modern era, by server\/discover\)$/);
    expect(servers.l).toMatch(
      /; speaks MCP 2025-11-25 \(legacy era, no server\/discover; initialize answered\)$/,
    );
    expect(servers.p).toContain('extension "p" refused the MCP 2025-11-25 handshake');
  }, 120_000);
});
