import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { cleanEnv, runCli, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { eventually, startServeHttp } from "../../testing/startServe.js";
import { MAX_CELL_WIDTH } from "./formatTable.js";

// Issue 34, point 8: a table is padded to its widest cell, so one 1,000-character tool name
// made every line of `pins` thousands of characters wide. Every table caps its cells and
// ends a cut one in `…`; `--json` keeps the value whole.

const LONG = `very_long_${"x".repeat(990)}`;

/** The widest line a table of `columns` capped cells can print. */
const widest = (columns: number) => columns * MAX_CELL_WIDTH + 2 * (columns - 1);

function expectCapped(stdout: string, columns: number): void {
  const lines = stdout.trimEnd().split("\n");
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(widest(columns));
  expect(stdout).not.toContain(LONG);
  // Cut to the cap, `…` last (the cell may start with the server's prefix).
  const cut = /\S*very_long_x+…/.exec(stdout)?.[0] ?? "";
  expect([...cut].length).toBe(MAX_CELL_WIDTH);
  // The short row is not padded out to the long name's width.
  const short = lines.find((l) => l.includes("short_tool"));
  expect(short?.length).toBeLessThan(3 * MAX_CELL_WIDTH + 200);
}

describe("tables with a 1,000-character tool name (issue 34, point 8)", () => {
  test("`pins` and `tools` cap and elide the cell; --json keeps the name whole", async () => {
    const dir = tempDir();
    const db = join(dir, "pins.db");
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          paged: {
            command: process.execPath,
            args: [join(SERVERS, "paged.js"), "--names", `short_tool,${LONG}`],
          },
        },
      }),
    );
    const env = cleanEnv(dir);
    const serve = await startServeHttp(["--config", config, "--db", db], dir, env);
    const pinned = async () => {
      const r = await runCli(["pins", "--db", db, "--json"], { cwd: dir, env });
      return r.code === 0 && r.stdout.includes(LONG);
    };
    try {
      await eventually(pinned, "the long name pinned", 60_000);
    } finally {
      await serve.stop();
    }
    const json = await runCli(["pins", "--db", db, "--json"], { cwd: dir, env });
    expect(
      (JSON.parse(json.stdout) as { rows: { name: string }[] }).rows.map((r) => r.name),
    ).toContain(LONG);
    const human = await runCli(["pins", "--db", db], { cwd: dir, env });
    expect(human.code, human.stderr).toBe(0);
    expectCapped(human.stdout, 7);

    const tools = await runCli(["tools", "--config", config], { cwd: dir, env });
    expect(tools.code, tools.stderr).toBe(0);
    expectCapped(tools.stdout, 5);
    const toolsJson = await runCli(["tools", "--config", config, "--json"], { cwd: dir, env });
    expect(toolsJson.stdout).toContain(LONG);
  }, 120_000);
});
