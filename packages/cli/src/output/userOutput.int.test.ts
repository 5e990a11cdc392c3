import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { sampleLog, toJsonl } from "../../testing/sampleLog.js";
import { SERVERS } from "../../testing/spawnCli.js";
import { testDeps } from "../../testing/testDeps.js";
import { COMMANDS, run } from "../program/run.js";

// What a user reads: no warnings for normal events, each failure said once, help that
// matches the commands.
function config(dir: string, servers: Record<string, unknown>): string {
  const file = join(dir, "mcp.json");
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

describe("tools: warnings only for faults", () => {
  test("a server that announces its tools right after start (a raced fetch, R11) is no warning", async () => {
    const t = testDeps();
    const file = config(t.dir, {
      eager: {
        command: process.execPath,
        args: [join(SERVERS, "slowStart.js"), "--announce", "--name", "eager"],
      },
    });
    expect(await run(["tools", "--config", file], t.deps)).toBe(0);
    expect(t.stdout()).toContain("eager__ping");
    expect(t.stderr()).not.toContain("raced an invalidation");
    // The race did happen: --json still reports it.
    const j = testDeps();
    expect(await run(["tools", "--config", file, "--json"], j.deps)).toBe(0);
    const diagnostics = (JSON.parse(j.stdout()) as { diagnostics: { kind: string }[] }).diagnostics;
    expect(diagnostics.map((d) => d.kind)).toContain("stale_fetch");
  }, 30_000);

  test("a server that fails to start is reported once, with its stderr tail", async () => {
    const t = testDeps();
    const file = config(t.dir, {
      notes: { command: process.execPath, args: [join(SERVERS, "notes.js")] },
      broken: { command: process.execPath, args: [join(SERVERS, "faulty.js"), "--crash-on-start"] },
    });
    expect(await run(["tools", "--config", file], t.deps)).toBe(6);
    expect(t.stderr().split("faulty: refusing to start").length - 1).toBe(1);
  }, 30_000);
});

describe("replay: a model's failed enable is an outcome, not an anomaly (D5, D6)", () => {
  test("the footer counts failed enables apart from anomalies; --to lists them apart from diagnostics", async () => {
    const t = testDeps();
    const log = join(t.dir, "session.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    expect(await run(["replay", log], t.deps)).toBe(0);
    const footer = t.stdout().trim().split("\n").at(-1) ?? "";
    expect(footer).toContain("· 1 failed enable");
    expect(footer).toContain("· 1 anomaly");
    const to = testDeps();
    const last = sampleLog().entries.length;
    expect(await run(["replay", log, "--to", String(last)], to.deps)).toBe(0);
    expect(to.stdout()).not.toContain("! an enable_tools request failed");
    expect(to.stdout()).toContain("failed enables 1");
    expect(to.stdout()).toContain("! an enable_tools response had no request");
  });

  test("--json is one document; --jsonl one object per step", async () => {
    const t = testDeps();
    const log = join(t.dir, "session.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    expect(await run(["replay", log, "--json"], t.deps)).toBe(0);
    const doc = JSON.parse(t.stdout()) as { steps: unknown[]; state: { version: number } };
    expect(doc.steps).toHaveLength(sampleLog().entries.length);
    expect(doc.state.version).toBe(sampleLog().state.version);
    const l = testDeps();
    expect(await run(["replay", log, "--jsonl"], l.deps)).toBe(0);
    expect(
      l
        .stdout()
        .trim()
        .split("\n")
        .map((x) => JSON.parse(x)),
    ).toEqual(doc.steps);
  });
});

describe("sessions: an imported session keeps the time it happened", () => {
  test("STARTED and ENDED come from the events, not from the import", async () => {
    const t = testDeps({ now: new Date("2026-11-30T12:00:00.000Z") });
    const at = (minute: number) => `2025-03-0${1}T09:0${minute}:00.000Z`;
    const events = sampleLog().entries.map((e, i) => ({ ...e.event, at: at(Math.min(i, 9)) }));
    const log = join(t.dir, "old.jsonl");
    writeFileSync(log, `${events.map((e) => JSON.stringify(e)).join("\n")}\n`);
    const db = join(t.dir, "s.db");
    expect(await run(["import", log, "--session", "old-one", "--db", db], t.deps)).toBe(0);
    const s = testDeps();
    expect(await run(["sessions", "--db", db, "--json"], s.deps)).toBe(0);
    const [row] = JSON.parse(s.stdout()) as {
      startedAt: string;
      endedAt: string;
      firstRecordedAt: string;
    }[];
    expect(row?.startedAt).toBe(at(0));
    expect(row?.endedAt).toBe(at(9));
    expect(row?.firstRecordedAt).not.toBe(at(0));
    const h = testDeps();
    expect(await run(["sessions", "--db", db], h.deps)).toBe(0);
    expect(h.stdout()).toContain("2025-03-01 09:00:00Z");
  });
});

describe("import", () => {
  test("the same file twice: the second is a conflict (5) that claims nothing", async () => {
    const t = testDeps();
    const log = join(t.dir, "s.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    const db = join(t.dir, "s.db");
    expect(await run(["import", log, "--session", "once", "--db", db], t.deps)).toBe(0);
    const again = testDeps();
    expect(await run(["import", log, "--session", "once", "--db", db], again.deps)).toBe(5);
    expect(again.stderr()).not.toContain("imported");
    expect(again.stdout()).toBe("");
  });
});

describe("explain without --session", () => {
  test("says which session it picked", async () => {
    const t = testDeps();
    const log = join(t.dir, "s.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    const db = join(t.dir, "s.db");
    expect(await run(["import", log, "--session", "first", "--db", db], t.deps)).toBe(0);
    expect(await run(["import", log, "--session", "second", "--db", db], t.deps)).toBe(0);
    const e = testDeps();
    expect(await run(["explain", "notes__add_note", "--db", db], e.deps)).toBe(0);
    expect(e.stderr()).toContain("no --session given; using the latest session, second");
  });
});

describe("help", () => {
  const ID = /\b(conv|host)-\d{8}-\d{6}-[0-9a-f]{8}\b|\b\d{8}-\d{4,6}-[0-9a-f]{6}\b/g;
  // The demo's servers: what examples may name besides a user's own (github__…) tools.
  const DEMO_TOOLS = [
    "notes__add_note",
    "notes__delete_note",
    "notes__list_notes",
    "notes__read_note",
    "notes__search_notes",
    "calculator__calculate",
    "calculator__convert_units",
    "calculator__current_time",
    "calculator__statistics",
  ];

  test("examples use ids of the form the CLI writes and tools the demo has", async () => {
    for (const { spec } of COMMANDS) {
      for (const example of spec.examples) {
        for (const id of example.match(ID) ?? [])
          expect(id, `${spec.name}: ${example}`).toMatch(/^conv-\d{8}-\d{6}-[0-9a-f]{8}$/);
        for (const tool of example.match(/\b(notes|calculator)__\w+/g) ?? [])
          expect(DEMO_TOOLS, `${spec.name}: ${example}`).toContain(tool);
      }
    }
  });

  test("audit --help names the columns it prints", async () => {
    const t = testDeps();
    expect(await run(["audit", "--help"], t.deps)).toBe(0);
    expect(t.stdout()).not.toContain("CLEARED");
    expect(t.stdout()).toContain("STILL ENABLED");
  });
});
