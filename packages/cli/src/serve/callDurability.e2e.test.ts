import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { cleanEnv, runCli, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { eventually, startServeHttp } from "../../testing/startServe.js";

// L1: how calls are recorded is the user's choice, by flag or config key, and `serve` says which.

function config(dir: string, settings: object): string {
  const file = join(dir, "mcp.json");
  writeFileSync(
    file,
    JSON.stringify({
      toolledger: settings,
      mcpServers: { calc: { command: process.execPath, args: [join(SERVERS, "calculator.js")] } },
    }),
  );
  return file;
}

const AHEAD = "calls written ahead (each start stored before the call goes upstream)";
const RELAXED = "calls written behind (relaxed: a crash may lose the record of the latest calls)";

describe("serve --call-durability and call_durability (L1)", () => {
  test("write-ahead by default; the config key chooses relaxed; the flag wins over it", async () => {
    const dir = tempDir();
    const db = join(dir, "d.db");
    const runs: [object, string[], string][] = [
      [{}, [], AHEAD],
      [{ call_durability: "relaxed" }, [], RELAXED],
      [{ call_durability: "relaxed" }, ["--call-durability", "write-ahead"], AHEAD],
    ];
    for (const [settings, flags, said] of runs) {
      const serve = await startServeHttp(
        ["--config", config(dir, settings), "--db", db, ...flags],
        dir,
      );
      try {
        await eventually(
          () => serve.stderr().includes("toolledger: serving "),
          "the summary",
          30_000,
        );
        await eventually(() => serve.stderr().includes(said), `serve saying ${said}`, 30_000);
      } finally {
        await serve.stop();
      }
    }
  }, 120_000);

  test("a value it does not know is refused, saying the two it takes; in the config, with its line", async () => {
    const dir = tempDir();
    const flag = await runCli(
      [
        "serve",
        "--config",
        config(dir, {}),
        "--db",
        join(dir, "d.db"),
        "--call-durability",
        "fast",
      ],
      { cwd: dir, env: cleanEnv(dir) },
    );
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toContain('--call-durability "fast": give write-ahead');
    const key = await runCli(
      ["serve", "--config", config(dir, { call_durability: "fast" }), "--db", join(dir, "d.db")],
      { cwd: dir, env: cleanEnv(dir) },
    );
    expect(key.code).not.toBe(0);
    expect(key.stderr).toMatch(
      /mcp\.json:1:\d+: toolledger\.call_durability: call_durability must be "write-ahead" or "relaxed"/,
    );
  }, 60_000);
});
