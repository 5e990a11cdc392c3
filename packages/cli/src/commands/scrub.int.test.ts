import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { PassThrough } from "node:stream";
import type { ToolledgerEventInput } from "@toolledger/core";
import { findLeaks, sampleEvent } from "@toolledger/core/testing";
import { openSqliteEventStore } from "@toolledger/store-sqlite";
import { describe, expect, test } from "vitest";
import { testDeps } from "../../testing/testDeps.js";
import { EXIT } from "../program/exitCodes.js";
import { run } from "../program/run.js";

// A log an older release wrote: the token reached two events raw, URL-encoded, JSON-escaped
// in a 401 body, in base64 inside a Basic header and as a schema key, plus a cached snapshot.
const TOKEN = "sk-live-Zq81nVb4Xy7Tm2Lp9Ws0";
const BASIC = Buffer.from(`bot:${TOKEN}`).toString("base64");

function leakyEvents(): ToolledgerEventInput[] {
  return [
    {
      type: "ExtensionAdded",
      v: 1,
      name: "remote",
      kind: "streamable_http",
      configFingerprint: "sha256:abc",
    },
    {
      type: "ToolsFetchFailed",
      v: 1,
      extension: "remote",
      startedAtVersion: 1,
      error: `did not start: Error POSTing to endpoint: {"echo":"Bearer ${TOKEN}","encoded":"${encodeURIComponent(`Bearer ${TOKEN}`)}"}`,
    },
    {
      type: "ToolsFetched",
      v: 1,
      extension: "remote",
      startedAtVersion: 1,
      tools: [
        {
          name: "whoami",
          description: `Authorization: Basic ${BASIC}`,
          inputSchema: { type: "object", properties: { [TOKEN]: { type: "string" } } },
        },
      ],
    },
  ];
}

async function leakyDatabase(): Promise<{ db: string; t: ReturnType<typeof testDeps> }> {
  const t = testDeps();
  const db = join(t.dir, "leaky.db");
  const store = openSqliteEventStore(db);
  const events = leakyEvents();
  const r1 = await store.append(
    "session-old",
    events.map((event, i) => ({ eventId: `e${i}`, event })),
  );
  expect(r1.ok).toBe(true);
  const r2 = await store.append("session-clean", [{ eventId: "c0", event: sampleEvent("clean") }]);
  expect(r2.ok).toBe(true);
  await store.saveSnapshot("session-old");
  await store.close();
  return { db, t };
}

function fileBytes(db: string): Buffer {
  const wal = `${db}-wal`;
  let bytes = readFileSync(db);
  try {
    bytes = Buffer.concat([bytes, readFileSync(wal)]);
  } catch {
    // no WAL left: nothing more to read
  }
  return bytes;
}

function pipe(t: ReturnType<typeof testDeps>, value: string): void {
  (t.deps.stdio.input as PassThrough).end(value);
}

describe("toolledger scrub (issue 10)", () => {
  test("removes a leaked value from every event and from the file; records it without the value; integrity ok", async () => {
    const { db, t } = await leakyDatabase();
    expect(findLeaks(fileBytes(db), TOKEN)).not.toEqual([]);

    pipe(t, `${TOKEN}\n`);
    expect(await run(["scrub", "--db", db], t.deps), t.stderr()).toBe(EXIT.ok);
    expect(t.stdout()).toContain("2 event(s) in 1 stream(s) held the value (session-old)");
    expect(t.stdout()).toContain("1 cached snapshot(s) dropped");
    expect(t.stderr()).toContain("integrity_check ok");

    // Nothing of it is left: not in the file, not in its WAL, not in free pages (the file
    // holds every other byte of those events, so a fragment would show).
    expect(findLeaks(fileBytes(db), TOKEN, { fragment: 10 })).toEqual([]);

    // The log still reads: the events keep their shape, with [redacted] in place of the value.
    const store = openSqliteEventStore(db);
    expect(await store.checkIntegrity()).toEqual(["ok"]);
    const events = await store.readStream("session-old");
    expect(events.map((e) => e.event.type)).toEqual([
      "ExtensionAdded",
      "ToolsFetchFailed",
      "ToolsFetched",
    ]);
    expect(JSON.stringify(events)).toContain("[redacted]");
    expect(JSON.stringify(events)).toContain("Error POSTing to endpoint");
    expect((await store.readStream("session-clean")).length).toBe(1);
    await store.close();

    const list = testDeps();
    expect(await run(["scrub", "--list", "--db", db, "--json"], list.deps)).toBe(EXIT.ok);
    const [record, ...more] = JSON.parse(list.stdout()) as {
      action: string;
      detail: { fingerprint: string; eventsChanged: number; streams: string[] };
    }[];
    expect(more).toEqual([]);
    expect(record).toMatchObject({
      action: "scrub",
      detail: { eventsChanged: 2, streams: ["session-old"] },
    });
    expect(record?.detail.fingerprint).toMatch(/^scrypt\$/);
    expect(findLeaks(list.stdout(), TOKEN)).toEqual([]);

    const replay = testDeps();
    expect(await run(["replay", "session-old", "--db", db], replay.deps)).toBe(EXIT.ok);
    expect(findLeaks(replay.stdout(), TOKEN)).toEqual([]);
  });

  test("--dry-run counts and changes nothing; --from-env reads the value from the environment", async () => {
    const { db } = await leakyDatabase();
    const before = readFileSync(db);
    const t = testDeps({ env: { LEAKED: TOKEN } });
    expect(await run(["scrub", "--db", db, "--from-env", "LEAKED", "--dry-run"], t.deps)).toBe(
      EXIT.ok,
    );
    expect(t.stdout()).toContain("2 event(s) in 1 stream(s) hold the value");
    expect(t.stdout()).toContain("nothing was changed");
    expect(readFileSync(db).equals(before)).toBe(true);
  });

  test("a value in the credentials of a Bearer or Basic value: scrubbing the whole header value also removes the token alone", async () => {
    const { db, t } = await leakyDatabase();
    pipe(t, `Bearer ${TOKEN}`);
    expect(await run(["scrub", "--db", db], t.deps)).toBe(EXIT.ok);
    expect(findLeaks(fileBytes(db), TOKEN)).toEqual([]);
  });

  test("refuses while another process has the file open (a running serve could write it back), and changes nothing", async () => {
    const { db, t } = await leakyDatabase();
    const serving = openSqliteEventStore(db);
    await serving.readStream("session-old");
    try {
      pipe(t, TOKEN);
      expect(await run(["scrub", "--db", db], t.deps)).toBe(EXIT.conflict);
      expect(t.stderr()).toContain("is open in another process");
    } finally {
      await serving.close();
    }
    expect(findLeaks(fileBytes(db), TOKEN)).not.toEqual([]);
  });

  test("the value never comes from argv; an empty or too short one is a usage error", async () => {
    const { db } = await leakyDatabase();
    const empty = testDeps();
    pipe(empty, "");
    expect(await run(["scrub", "--db", db], empty.deps)).toBe(EXIT.usage);
    expect(empty.stderr()).toContain("no value given on standard input");
    const short = testDeps();
    pipe(short, "abc");
    expect(await run(["scrub", "--db", db], short.deps)).toBe(EXIT.usage);
    const positional = testDeps();
    expect(await run(["scrub", TOKEN, "--db", db], positional.deps)).toBe(EXIT.usage);
    const unset = testDeps();
    expect(await run(["scrub", "--db", db, "--from-env", "NOPE"], unset.deps)).toBe(EXIT.usage);
  });
});
