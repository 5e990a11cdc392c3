import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumSkipReason, launchChromium, watchedPage } from "../../testing/chromium.js";
import { GooseDatabase } from "../../testing/goose/gooseDatabase.js";
import { call, dispatchError, toolResponse, userText } from "../../testing/goose/gooseMessages.js";
import { SCENARIO_EXTENSIONS, writeScenarioDatabase } from "../../testing/goose/gooseScenario.js";
import { cleanEnv, runCli, tempDir } from "../../testing/spawnCli.js";

/**
 * Issue 26, the rest of "then everything works on it": what deferral would have saved in a
 * session goose ran with deferral off (D4), the calls to tools that were deferred and not
 * enabled (D9) or unknown (R13) in `audit --calls`, and `explain` of a name only calls knew.
 */

/** A goose session with deferral off (no load_tools request): four calls, one "not found". */
function writeDeferralOffSession(file: string): string {
  const g = new GooseDatabase(file, 16);
  try {
    const id = g.createSession({ name: "no deferral", createdAt: "2026-09-22 09:00:00" });
    g.setExtensions(id, SCENARIO_EXTENSIONS);
    const t0 = 1_790_100_000;
    g.addMessages(
      id,
      userText(t0, "look around"),
      ...call(t0 + 1, "t1", "developer__shell", { command: "ls" }, toolResponse("t1", "a b")),
      ...call(t0 + 3, "t2", "github__list_repos", {}, toolResponse("t2", "[]")),
      ...call(t0 + 5, "t3", "github__create_issue", { title: "x" }, toolResponse("t3", "#1")),
      ...call(t0 + 7, "t4", "github__search_code", { q: "x" }, toolResponse("t4", "none")),
      ...call(
        t0 + 9,
        "t5",
        "nosuch__tool",
        {},
        dispatchError("t5", -32602, "Tool 'nosuch__tool' not found"),
      ),
    );
    return id;
  } finally {
    g.close();
  }
}

async function imported(dir: string, gooseDb: string, session: string) {
  const ledger = join(dir, "ledger.db");
  const env = cleanEnv(dir);
  const r = await runCli(
    ["import", "goose", "--goose-db", gooseDb, "--session", session, "--db", ledger],
    { cwd: dir, env },
  );
  expect(r.stderr).not.toMatch(/error/i);
  expect(r.code).toBe(0);
  const cli = (args: string[]) => runCli([...args, "--db", ledger], { cwd: dir, env });
  return { ledger, cli };
}

const SAVING =
  /([\d,]+) tokens of tool definitions with deferral off; sending ([\d,]+) would have saved (\d+)% with deferral lookup \(o200k_base\)/;
const num = (s: string) => Number(s.replaceAll(",", ""));

const noBrowser = chromiumSkipReason();
let browser: Browser | undefined;
beforeAll(async () => {
  if (noBrowser === null) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe("a goose session imported with deferral off (built CLI, issue 26)", () => {
  it("D4: replay and view say what deferral lookup would have saved, the page's state panel too (Chromium)", async () => {
    const dir = tempDir();
    const gooseDb = join(dir, "sessions.db");
    const id = writeDeferralOffSession(gooseDb);
    const { cli } = await imported(dir, gooseDb, id);

    const replay = await cli(["replay", `goose-${id}`]);
    expect(replay.code).toBe(0);
    const line = SAVING.exec(replay.stdout);
    expect(line, replay.stdout).not.toBeNull();
    const [, off, lookup, saved] = line!;
    // Deferral lookup sends the platform extension's schemas, enable_tools and the names: less.
    expect(num(lookup!)).toBeLessThan(num(off!));
    expect(Number(saved)).toBe(Math.round((1 - num(lookup!) / num(off!)) * 100));
    expect(Number(saved)).toBeGreaterThan(0);

    const out = join(dir, "view.html");
    const view = await cli(["view", `goose-${id}`, "--out", out]);
    expect(view.code).toBe(0);
    expect(view.stderr).toContain(line![0]);

    if (!browser) return;
    const { page, problems } = await watchedPage(browser);
    await page.goto(pathToFileURL(out).href);
    await page.waitForSelector("html[data-folded]", { timeout: 120_000 });
    const tokens = page.locator("[data-testid=tokens]");
    expect(await tokens.getAttribute("data-off")).toBe(String(num(off!)));
    expect(await tokens.getAttribute("data-received")).toBe(String(num(off!)));
    expect(await tokens.getAttribute("data-lookup")).toBe(String(num(lookup!)));
    expect(await tokens.textContent()).toBe(
      `${off} tokens of tool definitions sent with deferral off; sending ${lookup} would have saved ${saved}% with deferral lookup`,
    );
    expect(problems).toEqual([]);
  }, 180_000);

  it("D9/R13: audit --calls marks the calls whose tool was deferred and not enabled, or unknown, in the table, --json and --csv", async () => {
    const dir = tempDir();
    const gooseDb = join(dir, "sessions.db");
    const { main } = writeScenarioDatabase(gooseDb, 16);
    const { cli } = await imported(dir, gooseDb, main);
    const session = `goose-${main}`;

    const json = await cli(["audit", "--calls", "--session", session, "--json"]);
    expect(json.code).toBe(0);
    const calls = (
      JSON.parse(json.stdout) as { calls: { name: string; callId: string; registry: unknown }[] }
    ).calls;
    // The column is the record's last key, after every existing one.
    expect(Object.keys(calls[0]!).at(-1)).toBe("registry");
    const marks = Object.fromEntries(calls.map((c) => [c.callId, c.registry]));
    expect(marks).toMatchObject({
      toolu_01: null, // developer__shell: deferral was on, but builtins are always loaded
      toolu_02: "deferred", // github__create_issue before any load_tools
      toolu_04: "unknown", // nosuch__tool: goose answered "not found"
      toolu_05: null, // the model's malformed call names no tool
      toolu_09: null, // github__list_repos after load_tools enabled it
    });

    const csv = await cli(["audit", "--calls", "--session", session, "--csv"]);
    expect(csv.code).toBe(0);
    const rows = csv.stdout.trim().split("\r\n");
    expect(rows[0]).toBe(
      "session,call_id,client,name,public_name,owner,outcome,reason,duration_ms,started_at,finished_at,error,registry",
    );
    expect(rows.find((r) => r.includes(",toolu_02,"))).toMatch(/,deferred$/);
    expect(rows.find((r) => r.includes(",toolu_04,"))).toMatch(/,unknown$/);
    expect(rows.find((r) => r.includes(",toolu_09,"))).toMatch(/,$/);

    const table = await cli(["audit", "--calls", "--session", session]);
    expect(table.code).toBe(0);
    const lines = table.stdout.split("\n");
    expect(lines[0]).toMatch(/ERROR +REGISTRY$/);
    expect(lines.find((l) => l.includes("github__create_issue"))).toMatch(
      /deferred, not enabled \(D9\)$/,
    );
    expect(lines.find((l) => l.includes("nosuch__tool"))).toMatch(/unknown to the registry$/);
    expect(lines.find((l) => l.includes("github__list_repos"))).not.toMatch(/deferred|unknown/);
  }, 120_000);

  it("R13: explain of a name no registry event listed but the session called says how often and where", async () => {
    const dir = tempDir();
    const gooseDb = join(dir, "sessions.db");
    const id = writeDeferralOffSession(gooseDb);
    const { cli } = await imported(dir, gooseDb, id);
    const session = `goose-${id}`;

    const replay = await cli(["replay", session, "--json"]);
    const steps = (
      JSON.parse(replay.stdout) as { steps: { position: number; type: string; name?: string }[] }
    ).steps;
    const started = steps.filter(
      (s) => s.type === "ToolCallStarted" && JSON.stringify(s).includes("nosuch__tool"),
    );
    expect(started).toHaveLength(1);

    const text = await cli(["explain", "nosuch__tool", "--session", session]);
    expect(text.stderr).toBe("");
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^nosuch__tool was called 1 time while unknown to the registry: no extension of this log listed a tool of that name\n/,
    );
    expect(text.stdout).toContain(
      `R13  called 1 time while unknown to the registry: no public name resolved, so the host that recorded the session (an imported one) answered the call itself`,
    );
    expect(text.stdout).toContain(`[event ${started[0]!.position}]`);

    const json = await cli(["explain", "nosuch__tool", "--session", session, "--json"]);
    const e = JSON.parse(json.stdout) as {
      status: string;
      calls: { outcome: string; reason: string }[];
      reasons: { rule: string; positions: number[] }[];
    };
    expect(e.status).toBe("unknown");
    expect(e.calls.map((c) => [c.outcome, c.reason])).toEqual([["refused", "UNKNOWN_TOOL"]]);
    expect(e.reasons.find((r) => r.rule === "R13")!.positions).toEqual([started[0]!.position]);

    // A name nothing listed and nothing called is still not found.
    const none = await cli(["explain", "nosuch__other", "--session", session]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('no tool named "nosuch__other" appears in this log');
  }, 120_000);
});
