import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PassThrough } from "node:stream";
import { describe, expect, test } from "vitest";
import { sampleLog, toJsonl } from "../../testing/sampleLog.js";
import { testDeps } from "../../testing/testDeps.js";
import { EXIT } from "../program/exitCodes.js";
import { run } from "../program/run.js";

/** Commands called as functions against a real SQLite file in a temp directory. */
function setup() {
  const t = testDeps();
  const db = join(t.dir, "s.db");
  const log = join(t.dir, "sample.jsonl");
  writeFileSync(log, toJsonl(sampleLog().entries));
  return { ...t, db, log };
}

const lines = (text: string) => text.trim().split("\n").filter(Boolean);

describe("import, sessions, replay, export, audit, explain on a real database", () => {
  test("import stores a log as a session; sessions lists it with its event count", async () => {
    const t = setup();
    expect(await run(["import", t.log, "--session", "s1", "--db", t.db], t.deps)).toBe(EXIT.ok);
    expect(t.stdout().trim()).toBe("s1");
    expect(t.stderr()).toContain("imported 28 events");
    const list = testDeps();
    expect(await run(["sessions", "--db", t.db, "--json"], { ...list.deps, cwd: t.dir })).toBe(
      EXIT.ok,
    );
    expect(JSON.parse(list.stdout())).toEqual([
      expect.objectContaining({ session: "s1", events: 28 }),
    ]);
  });

  test("importing into a session that exists is a conflict and writes nothing", async () => {
    const t = setup();
    await run(["import", t.log, "--session", "s1", "--db", t.db], t.deps);
    const again = testDeps();
    expect(await run(["import", t.log, "--session", "s1", "--db", t.db], again.deps)).toBe(
      EXIT.conflict,
    );
    expect(again.stderr()).toContain('session "s1" already exists');
    expect(again.stderr()).toContain("--session <id>");
  });

  test("import - reads standard input", async () => {
    const t = setup();
    const input = t.deps.stdio.input as PassThrough;
    input.end(readFileSync(t.log, "utf8"));
    expect(await run(["import", "-", "--session", "piped", "--db", t.db], t.deps)).toBe(EXIT.ok);
    expect(t.stderr()).toContain("imported 28 events from <stdin> as session piped");
  });

  test("replay --jsonl: one object per step; --to: the state at that position", async () => {
    const t = setup();
    await run(["import", t.log, "--session", "s1", "--db", t.db], t.deps);
    const r = testDeps();
    expect(await run(["replay", "s1", "--db", t.db, "--jsonl"], r.deps)).toBe(EXIT.ok);
    const steps = lines(r.stdout()).map((l) => JSON.parse(l));
    expect(steps).toHaveLength(28);
    expect(steps[8]).toMatchObject({
      position: 9,
      type: "ToolsFetched",
      changes: expect.arrayContaining([expect.objectContaining({ kind: "collision" })]),
    });
    const s = testDeps();
    expect(await run(["replay", "s1", "--db", t.db, "--to", "14", "--json"], s.deps)).toBe(EXIT.ok);
    const state = JSON.parse(s.stdout());
    expect(state).toMatchObject({
      position: 14,
      enabled: ["notes__add_note"],
      deferral: { mode: "lookup" },
    });
    const past = testDeps();
    expect(await run(["replay", "s1", "--db", t.db, "--to", "99"], past.deps)).toBe(EXIT.usage);
    expect(past.stderr()).toContain("last position 28");
  });

  test("R8: replay --to leaves hidden extensions' tools out unless --include-hidden", async () => {
    const t = setup();
    expect(await run(["replay", t.log, "--to", "28"], t.deps)).toBe(EXIT.ok);
    expect(t.stdout()).not.toContain("_internal__secret");
    expect(t.stdout()).toContain("1 hidden extension(s) with 1 tool(s) not shown");
    const all = testDeps();
    await run(["replay", t.log, "--to", "28", "--include-hidden", "--json"], {
      ...all.deps,
      cwd: t.dir,
    });
    expect(JSON.parse(all.stdout()).tools).toContainEqual(
      expect.objectContaining({ name: "_internal__secret", class: "hidden" }),
    );
  });

  test("replay reads a JSONL file directly; human output shows positions and changes", async () => {
    const t = setup();
    expect(await run(["replay", t.log], t.deps)).toBe(EXIT.ok);
    expect(t.stdout()).toMatch(/^ 9 {2}ToolsFetched {10}\+ 1 tool\(s\) from a__b: a__b__c$/m);
    expect(t.stdout()).toContain("collision on a__b__c: a wins, a__b lost it");
    expect(t.stdout()).toContain(
      "stale fetch of notes ignored (started at version 4, registry at 5)",
    );
    expect(t.stdout()).not.toContain("\u001b[");
  });

  test("export then import elsewhere gives the same replay", async () => {
    const t = setup();
    await run(["import", t.log, "--session", "s1", "--db", t.db], t.deps);
    const out = join(t.dir, "out.jsonl");
    expect(await run(["export", "s1", "--db", t.db, "-o", out], testDeps().deps)).toBe(EXIT.ok);
    const exported = lines(readFileSync(out, "utf8")).map((l) => JSON.parse(l));
    expect(exported[0]).toMatchObject({
      session: "s1",
      position: 1,
      event: { type: "DeferralConfigured" },
    });
    const other = join(t.dir, "other.db");
    const i = testDeps();
    expect(await run(["import", out, "--db", other], i.deps)).toBe(EXIT.ok);
    expect(i.stdout().trim()).toBe("s1");
    const a = testDeps();
    const b = testDeps();
    await run(["replay", "s1", "--db", t.db, "--jsonl"], a.deps);
    await run(["replay", "s1", "--db", other, "--jsonl"], b.deps);
    const strip = (text: string) =>
      lines(text).map((l) => ({ ...JSON.parse(l), recordedAt: undefined }));
    expect(strip(b.stdout())).toEqual(strip(a.stdout()));
  });

  test("audit: outcomes, still enabled, ended by clear; --tool and --csv", async () => {
    const t = setup();
    await run(["import", t.log, "--session", "s1", "--db", t.db], t.deps);
    const a = testDeps();
    expect(await run(["audit", "--session", "s1", "--db", t.db, "--json"], a.deps)).toBe(EXIT.ok);
    const audit = JSON.parse(a.stdout());
    expect(
      audit.requests.map((r: { callId: string; outcome: string }) => [r.callId, r.outcome]),
    ).toEqual([
      ["call-1", "enabled"],
      ["call-2", "failed"],
      ["call-3", "enabled"],
    ]);
    expect(audit.requests[0].ended).toMatchObject({ by: "Cleared", position: 18 });
    expect(audit.orphanResponses).toEqual([expect.objectContaining({ callId: "orphan" })]);
    const byTool = testDeps();
    await run(["audit", "--db", t.db, "--tool", "notes__search_notes", "--json"], byTool.deps);
    expect(JSON.parse(byTool.stdout()).requests.map((r: { callId: string }) => r.callId)).toEqual([
      "call-2",
      "call-3",
    ]);
    const csv = testDeps();
    await run(["audit", "--db", t.db, "--csv"], csv.deps);
    expect(csv.stdout().split("\r\n")[0]).toMatch(/^session_id,call_id,names,outcome/);
    const human = testDeps();
    await run(["audit", "--db", t.db], human.deps);
    expect(human.stdout()).toMatch(/call-1 +notes__add_note +enabled +13→14 +no: cleared at 18/);
  });

  test("audit --since takes ISO times and ages; anything else is a usage error", async () => {
    const t = setup();
    await run(["import", t.log, "--session", "s1", "--db", t.db], t.deps);
    const future = testDeps();
    expect(
      await run(["audit", "--db", t.db, "--since", "2099-01-01T00:00:00Z", "--json"], future.deps),
    ).toBe(EXIT.ok);
    expect(JSON.parse(future.stdout()).requests).toEqual([]);
    const bad = testDeps();
    expect(await run(["audit", "--db", t.db, "--since", "yesterday"], bad.deps)).toBe(EXIT.usage);
    expect(bad.stderr()).toContain("not a time");
  });

  test("explain defaults to the latest session and cites positions", async () => {
    const t = setup();
    await run(["import", t.log, "--session", "s1", "--db", t.db], t.deps);
    const e = testDeps();
    expect(await run(["explain", "notes__add_note", "--db", t.db], e.deps)).toBe(EXIT.ok);
    expect(e.stdout()).toContain("notes__add_note is deferred");
    expect(e.stdout()).toMatch(
      /D8 +it was enabled earlier, until the conversation was cleared \[event 18\]/,
    );
    const unknown = testDeps();
    expect(await run(["explain", "notes__add_notes", "--db", t.db], unknown.deps)).toBe(
      EXIT.notFound,
    );
    expect(unknown.stderr()).toContain("close names: notes__add_note");
  });

  test("a missing database or session is not-found and creates nothing", async () => {
    const t = setup();
    for (const args of [
      ["sessions"],
      ["replay", "s1"],
      ["audit"],
      ["export", "s1"],
      ["explain", "x"],
    ]) {
      const c = testDeps();
      expect(await run([...args, "--db", t.db], c.deps)).toBe(EXIT.notFound);
      expect(c.stderr()).toContain(`no session database at ${t.db}`);
    }
    expect(existsSync(t.db)).toBe(false);
    await run(["import", t.log, "--session", "s1", "--db", t.db], t.deps);
    const c = testDeps();
    expect(await run(["replay", "nope", "--db", t.db], c.deps)).toBe(EXIT.notFound);
    expect(c.stderr()).toContain('no session "nope"');
    expect(c.stderr()).toContain("known sessions include s1");
  });

  test("a damaged JSONL line is refused with its line number, and nothing is imported", async () => {
    const t = setup();
    const bad = join(t.dir, "bad.jsonl");
    const text = readFileSync(t.log, "utf8").split("\n");
    text[4] = text[4]!.replace('"kind":"stdio"', '"kind":7');
    writeFileSync(bad, text.join("\n"));
    const c = testDeps();
    expect(await run(["import", bad, "--db", t.db], c.deps)).toBe(EXIT.badInput);
    expect(c.stderr()).toContain(`${bad}:5: INVALID_FIELD: field kind`);
    expect(existsSync(t.db)).toBe(false);
  });

  test("usage errors: unknown command, unknown flag, missing argument", async () => {
    for (const args of [
      ["replya"],
      ["replay"],
      ["sessions", "--bogus"],
      ["audit", "--json", "--csv"],
    ]) {
      const c = testDeps();
      expect(await run(args, c.deps)).toBe(EXIT.usage);
      expect(c.stderr()).toMatch(/toolledger: .+\nhint: run `toolledger .*--help` for usage/);
    }
  });
});
