import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ExtensionConnection } from "@toolledger/adapters-mcp";
import { describe, expect, test } from "vitest";
import { sampleLog, toJsonl } from "../../testing/sampleLog.js";
import { CLI, cleanEnv, runCli, SERVERS, tempDir } from "../../testing/spawnCli.js";

// Issue 20, point 9: what a new user tripped over, through the built `toolledger` command.

describe("a mistyped command or flag gets the one it most likely meant", () => {
  test.each([
    [["exprot", "x"], 'unknown command "exprot"; did you mean export?'],
    [["sesions"], 'unknown command "sesions"; did you mean sessions?'],
    [["sessions", "--jsno"], "sessions: unknown option '--jsno'; did you mean --json?"],
    [
      ["view", "x.jsonl", "--otput", "a.html"],
      "view: unknown option '--otput'; did you mean --output?",
    ],
    [
      ["serve", "--deferal", "lookup"],
      "serve: unknown option '--deferal'; did you mean --deferral?",
    ],
  ])("toolledger %j", async (args, message) => {
    const dir = tempDir();
    const r = await runCli(args, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`toolledger: ${message}\n`);
  });

  test("nothing close: no guess", async () => {
    const r = await runCli(["sessions", "--zzzzzz"], { cwd: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--zzzzzz'\n");
  });
});

describe("view and export spell their output file the same way", () => {
  test("view -o / --output like export; --out still works; both in one command is refused", async () => {
    const dir = tempDir();
    const log = join(dir, "s.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    for (const [flag, name] of [
      ["--output", "a.html"],
      ["-o", "b.html"],
      ["--out", "c.html"],
    ] as const) {
      const r = await runCli(["view", log, flag, name], { cwd: dir });
      expect(r.code, `${flag}: ${r.stderr}`).toBe(0);
      expect(r.stdout.trim()).toBe(join(dir, name));
      expect(readFileSync(join(dir, name), "utf8")).toContain("toolledger view");
    }
    const both = await runCli(["view", log, "--out", "d.html", "--output", "e.html"], {
      cwd: dir,
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--out is --output; give it once");
    const help = await runCli(["view", "--help"], { cwd: dir });
    expect(help.stdout).toMatch(/-o, --output <file\.html> .*\(also --out\)/);
    const exportHelp = await runCli(["export", "--help"], { cwd: dir });
    expect(exportHelp.stdout).toMatch(/-o, --output <file>/);
  }, 120_000);
});

describe("view --open says whether a browser opened", () => {
  async function viewWith(browser: string, extra: string[] = []) {
    const dir = tempDir();
    const log = join(dir, "s.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    const script = join(dir, "browser.sh");
    writeFileSync(script, `#!/bin/sh\n${browser}\n`, { mode: 0o755 });
    const r = await runCli(["view", log, "-o", join(dir, "s.html"), "--open", ...extra], {
      cwd: dir,
      env: cleanEnv(dir, { BROWSER: script }),
    });
    return { r, dir, url: pathToFileURL(join(dir, "s.html")).href, script };
  }

  test("a browser that takes the URL: 'opened … with $BROWSER'", async () => {
    const { r, dir, url, script } = await viewWith('echo "$1" > "$(dirname "$0")/opened.txt"');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`opened ${url} with $BROWSER (${script})\n`);
    expect(readFileSync(join(dir, "opened.txt"), "utf8").trim()).toBe(url);
  });

  test("an opener that fails: a warning with its exit code and the file to open by hand; the page is still written", async () => {
    const { r, dir } = await viewWith("exit 3");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("warning: no browser opened: $BROWSER");
    expect(r.stderr).toContain(`it exited with code 3; open ${join(dir, "s.html")} yourself`);
  });

  test("a browser that keeps running is the browser itself: opened", async () => {
    const { r } = await viewWith("sleep 3");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("(still running: the browser itself)");
  });

  test("--json carries the outcome", async () => {
    const { r, url } = await viewWith("exit 4", ["--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { file: string; events: number; browser: unknown };
    expect(out.events).toBeGreaterThan(5);
    expect(out.browser).toMatchObject({ opened: false, url, why: "it exited with code 4" });
  });
});

describe("serve without --config", () => {
  test("says at startup that it reads goose's config.yaml, and its help says so", async () => {
    const dir = tempDir();
    const goose = join(dir, "home", ".config", "goose", "config.yaml");
    mkdirSync(join(goose, ".."), { recursive: true });
    writeFileSync(
      goose,
      `extensions:\n  notes:\n    type: stdio\n    cmd: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(join(SERVERS, "notes.js"))}]\n    enabled: true\n`,
    );
    // stdin closed at once: serve starts, reports, and stops.
    const r = await runCli(["serve", "--db", join(dir, "s.db")], { cwd: dir, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `toolledger: no --config given: reading goose's config ${goose} (pass --config <file> or set TOOLLEDGER_CONFIG for another)`,
    );
    const withConfig = await runCli(["serve", "--config", goose, "--db", join(dir, "s.db")], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(withConfig.code, withConfig.stderr).toBe(0);
    expect(withConfig.stderr).not.toContain("no --config given");
    const help = await runCli(["serve", "--help"], { cwd: dir });
    expect(help.stdout).toMatch(/--config <file> .*default: \$TOOLLEDGER_CONFIG, else goose's own/);
  }, 120_000);
});

describe("deferral and clients that open a new MCP session per request", () => {
  /** One request from a client that connects, does one thing and disconnects. */
  async function oneRequest(
    dir: string,
    serveArgs: string[],
    what: (c: ExtensionConnection) => Promise<unknown>,
  ): Promise<unknown> {
    const c = await ExtensionConnection.connect(
      {
        type: "stdio",
        name: "gateway",
        command: process.execPath,
        args: [CLI, "serve", ...serveArgs],
        env: cleanEnv(dir),
      },
      { connectTimeoutMs: 30_000 },
    );
    try {
      return await what(c);
    } finally {
      await c.close();
    }
  }

  test("each new session is a new conversation (the tool is deferred again); --conversation <id> keeps the enabled tools; serve --help says both", async () => {
    const dir = tempDir();
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { notes: { command: process.execPath, args: [join(SERVERS, "notes.js")] } },
      }),
    );
    const base = ["--config", config, "--db", join(dir, "s.db"), "--deferral", "lookup"];
    const limits = { timeoutMs: 20_000 };
    const enable = (c: ExtensionConnection) =>
      c.callTool("enable_tools", { names: ["notes__add_note"] }, limits);
    const add = (c: ExtensionConnection) =>
      c.callTool("notes__add_note", { title: "t", body: "b" }, limits);

    await oneRequest(dir, base, enable);
    const again = (await oneRequest(dir, base, add)) as { isError?: boolean; content: unknown };
    expect(again.isError).toBe(true);
    expect(JSON.stringify(again.content)).toContain("enable_tools");

    const kept = [...base, "--conversation", "conv-per-request"];
    await oneRequest(dir, kept, enable);
    const resumed = (await oneRequest(dir, kept, add)) as { isError?: boolean };
    expect(resumed.isError ?? false).toBe(false);

    const help = await runCli(["serve", "--help"], { cwd: dir });
    expect(help.stdout).toContain("new MCP session per request");
    expect(help.stdout).toContain("--conversation <id>");
  }, 180_000);
});
