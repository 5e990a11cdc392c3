import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { RawMcpProcess } from "../../testing/rawMcpProcess.js";
import { CLI, cleanEnv, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { eventually } from "../../testing/startServe.js";

// Issue 20, point 9: `pnpm test` left a server-everything running. It outlives a closed stdin
// for seconds, and for good once its pipes are gone, so a gateway that exits while it is still
// closing its servers must stop them itself.

const require = createRequire(import.meta.url);
const EVERYTHING = (() => {
  const dir = dirname(require.resolve("@modelcontextprotocol/server-everything/package.json"));
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    bin: string | Record<string, string>;
  };
  return join(dir, typeof pkg.bin === "string" ? pkg.bin : Object.values(pkg.bin)[0]!);
})();

/** The processes `pid` started (Linux's /proc). */
function childrenOf(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
}

/** Running: there, and not a zombie (an orphan's exit waits for init to collect it). */
function alive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  // The state follows the command name in parentheses.
  const state = stat.replace(/^.*\) /s, "")[0];
  return state !== "Z" && state !== "X";
}

describe.skipIf(process.platform !== "linux")("no server outlives serve", () => {
  test("a second Ctrl-C ends serve at once, and its servers with it: a frozen one and server-everything", async () => {
    const dir = tempDir();
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING, "stdio"] },
          faulty: { command: process.execPath, args: [join(SERVERS, "faulty.js")] },
        },
      }),
    );
    const serve = new RawMcpProcess(
      process.execPath,
      [CLI, "serve", "--config", config, "--db", join(dir, "s.db")],
      { cwd: dir, env: cleanEnv(dir) },
    );
    let servers: number[] = [];
    try {
      await serve.initialize();
      // Both servers listed (a call to a server still starting would wait for it).
      for (let id = 100; ; id++) {
        serve.send({ jsonrpc: "2.0", id, method: "tools/list", params: {} });
        if (JSON.stringify(await serve.response(id)).includes("faulty__freeze")) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      servers = childrenOf(serve.child.pid!);
      expect(servers).toHaveLength(2);
      // A server that stopped answering ignores a closed stdin: only a signal ends it.
      serve.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "faulty__freeze", arguments: {} },
      });
      await new Promise((r) => setTimeout(r, 1000));
      serve.child.kill("SIGINT");
      // The first one is handled (serve starts closing its servers), then the second.
      await serve.stderrMatching(/stopping \(interrupted\)/);
      serve.child.kill("SIGINT");
      expect((await serve.exited).code).toBe(130);
      // Signalled from serve's exit handler: no waiting for their own slow shutdown.
      await eventually(() => servers.every((pid) => !alive(pid)), "the servers to be gone", 2_000);
    } finally {
      for (const pid of servers) if (alive(pid)) process.kill(pid, "SIGKILL");
      if (serve.child.exitCode === null) serve.child.kill("SIGKILL");
    }
  }, 120_000);
});
