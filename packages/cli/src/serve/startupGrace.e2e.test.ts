import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { UPSTREAM_CLIENT_CAPABILITIES } from "@toolledger/adapters-mcp";
import { describe, expect, test } from "vitest";
import {
  publishedServer,
  resultText,
  sdkClientOverHttp,
  serveOverStdio,
  shippedServer,
} from "../../testing/sdkServeClient.js";
import { cleanEnv, runCli, tempDir } from "../../testing/spawnCli.js";
import { startServeHttp } from "../../testing/startServe.js";
import { EXIT } from "../program/exitCodes.js";

// Issue 20.2: `initialize` is answered at once, and the first tools/list waits for servers
// still starting, each up to its startup grace; only those past it are left out, to join
// later with tools/list_changed. `tools` waits the same way.

/** What a server lists when the SDK's client asks it directly (no toolledger in between). */
async function listedDirectly(entry: {
  command: string;
  args: string[];
  env?: Record<string, string>;
}): Promise<string[]> {
  // The capabilities toolledger declares upstream: server-everything lists more tools for them.
  const client = new Client(
    { name: "direct", version: "1.0.0" },
    { capabilities: UPSTREAM_CLIENT_CAPABILITIES },
  );
  await client.connect(
    new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { ...cleanEnv(tempDir()), ...entry.env },
      stderr: "ignore",
    }),
  );
  try {
    // server-everything registers some tools once initialized and says list_changed: wait
    // for its list to settle as a patient client would.
    let names: string[] = [];
    for (let i = 0; i < 20; i++) {
      const next = (await client.listTools()).tools.map((t) => t.name).sort();
      if (i > 0 && next.join() === names.join()) break;
      names = next;
      await new Promise((r) => setTimeout(r, 100));
    }
    return names;
  } finally {
    await client.close();
  }
}

describe("the first tools/list waits for servers still starting (issue 20.2)", () => {
  test("server-everything and server-memory are all in the first list, over stdio", async () => {
    const dir = tempDir();
    const everything = publishedServer("everything", dir);
    const memory = publishedServer("memory", dir);
    const expected = [
      ...(await listedDirectly(everything)).map((n) => `everything__${n}`),
      ...(await listedDirectly(memory)).map((n) => `memory__${n}`),
    ].sort();
    expect(expected.length).toBeGreaterThan(20);
    const c = await serveOverStdio(dir, { mcpServers: { everything, memory } });
    try {
      // The very first request after initialize, as many clients make it.
      const first = await c.names();
      expect(first).toEqual(expected);
      expect(
        resultText(
          await c.client.callTool({ name: "everything__echo", arguments: { message: "hi" } }),
        ),
      ).toContain("hi");
      // Issue 20.9: "ready" is said with the tools the server ended up with, not its first answer.
      const count = expected.filter((n) => n.startsWith("everything__")).length;
      expect(c.stderr()).toContain(`everything is ready (${count} tool(s))`);
      expect(c.stderr()).not.toContain("is ready (0 tool(s))");
    } finally {
      await c.close();
    }
  }, 90_000);

  test("over HTTP, with a changing server beside them: every tool in the first list, every call found", async () => {
    const dir = tempDir();
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          everything: publishedServer("everything", dir),
          memory: publishedServer("memory", dir),
          ch: shippedServer("changing"),
        },
      }),
    );
    const serve = await startServeHttp(["--config", config, "--db", join(dir, "s.db")], dir);
    try {
      const c = await sdkClientOverHttp(serve.url, serve.stderr);
      try {
        const first = await c.names();
        expect(first).toContain("everything__echo");
        expect(first).toContain("memory__create_entities");
        expect(first).toContain("ch__add_tool");
        const echo = await c.client.callTool({
          name: "everything__echo",
          arguments: { message: "over http" },
        });
        expect(echo.isError).toBeFalsy();
        expect(resultText(echo)).toContain("over http");
      } finally {
        await c.close();
      }
    } finally {
      await serve.stop();
    }
  }, 90_000);

  test("initialize is immediate; the first list waits for a slow server within its grace", async () => {
    const dir = tempDir();
    const c = await serveOverStdio(dir, {
      toolledger: { startup_grace: 30 },
      mcpServers: { late: shippedServer("slowStart", "--delay-ms", "2500", "--name", "late") },
    });
    try {
      // Connected (initialize answered) while the server still sleeps before serving.
      expect(c.stderr()).not.toContain("late is ready");
      expect(await c.names()).toEqual(["late__ping"]);
      expect(c.stderr()).toContain("late is ready (1 tool(s))");
    } finally {
      await c.close();
    }
  }, 60_000);

  test("hung servers are left out once their grace is over; a server's own grace wins over the file's", async () => {
    const dir = tempDir();
    const c = await serveOverStdio(dir, {
      toolledger: { start_timeout: 300, startup_grace: 1.5 },
      mcpServers: {
        notes: shippedServer("notes"),
        noinit: shippedServer("slowStart", "--hang-init"),
        nolist: shippedServer("faulty", "--hang-list"),
        patient: {
          ...shippedServer("slowStart", "--delay-ms", "3000", "--name", "patient"),
          startup_grace: 30,
        },
        impatient: shippedServer("slowStart", "--delay-ms", "4000", "--name", "impatient"),
      },
    });
    try {
      const joined = c.until((n) => n.includes("impatient__ping"), "impatient joins", 30_000);
      const first = await c.names();
      expect(first).toContain("notes__add_note");
      expect(first).toContain("patient__ping");
      expect(first.some((n) => /^(noinit|nolist|impatient)__/.test(n))).toBe(false);
      // It joins later with tools/list_changed.
      expect(await joined).toContain("impatient__ping");
      await expect
        .poll(c.stderr, { timeout: 10_000 })
        .toMatch(/still starting after the startup grace: [^)]*noinit/);
    } finally {
      await c.close();
    }
  }, 90_000);

  test("`tools` waits with the same grace: a server past it is reported, one within it is listed", async () => {
    const dir = tempDir();
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        toolledger: { startup_grace: 1 },
        mcpServers: {
          patient: {
            ...shippedServer("slowStart", "--delay-ms", "2000", "--name", "patient"),
            startup_grace: 30,
          },
          late: shippedServer("slowStart", "--delay-ms", "20000", "--name", "late"),
        },
      }),
    );
    const r = await runCli(["tools", "--config", config], { cwd: dir, timeoutMs: 60_000 });
    expect(r.stdout).toContain("patient__ping");
    expect(r.stdout).not.toContain("late__ping");
    expect(r.stderr).toContain(
      "late was still starting after its startup grace of 1 s; `serve` leaves it out of its first tools/list too",
    );
    expect(r.code).toBe(EXIT.serverFailure);
  }, 60_000);
});
