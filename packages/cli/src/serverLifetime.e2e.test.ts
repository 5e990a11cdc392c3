import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { CLI, cleanEnv, tempDir } from "./_testing/spawnCli.js";
import { eventually } from "./_testing/startServe.js";

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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(process.platform !== "linux")("no server outlives serve", () => {
  test("a second Ctrl-C ends serve at once, and server-everything with it", async () => {
    const dir = tempDir();
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      }),
    );
    const serve = spawn(
      process.execPath,
      [CLI, "serve", "--config", config, "--db", join(dir, "s.db")],
      {
        cwd: dir,
        env: cleanEnv(dir),
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let stderr = "";
    serve.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const exited = new Promise<number | null>((resolve) =>
      serve.on("exit", (code) => resolve(code)),
    );
    let servers: number[] = [];
    try {
      await eventually(() => stderr.includes("toolledger: serving"), "serve to start", 60_000);
      await eventually(
        () => (servers = childrenOf(serve.pid!)).length > 0,
        "server-everything to be started",
        30_000,
      );
      // Started and running its own timers (it keeps running on a closed stdin because of them).
      await new Promise((r) => setTimeout(r, 1500));
      serve.kill("SIGINT");
      serve.kill("SIGINT");
      expect(await exited).toBe(130);
      // An exit handler signals them synchronously: no wait for their own slow shutdown.
      await eventually(() => servers.every((pid) => !alive(pid)), "the servers to be gone", 1_000);
    } finally {
      for (const pid of servers) if (alive(pid)) process.kill(pid, "SIGKILL");
      if (serve.exitCode === null) serve.kill("SIGKILL");
    }
  }, 120_000);
});
