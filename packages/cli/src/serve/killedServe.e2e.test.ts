import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { SessionStore, StoredEvent } from "@toolledger/core";
import {
  findPostgresBinaries,
  startThrowawayCluster,
  type ThrowawayCluster,
} from "@toolledger/store-postgres/testing";
import { describe, expect, test } from "vitest";
import { chromiumSkipReason, launchChromium, watchedPage } from "../../testing/chromium.js";
import { type SdkClientOfServe, sdkClientOverHttp } from "../../testing/sdkServeClient.js";
import { cleanEnv, runCli, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { eventually, type ServeProcess, startServeHttp } from "../../testing/startServe.js";
import { describeEachStore } from "../../testing/testDatabases.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { openStore } from "../session/openStore.js";

// L1 and L3 through the built `serve`, killed with SIGKILL at random points while clients call
// a server that writes down every call it runs: every call the upstream ran, and every call a
// client saw answered, has its ToolCallStarted in the log; the next `serve` on the database
// ends the killed one's conversations as lost, their unfinished calls `unknown`, and
// `sessions`, `audit --calls` and `replay` say so.

function witnessConfig(dir: string, file: string): string {
  const config = join(dir, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { w: { command: process.execPath, args: [join(SERVERS, "witness.js"), file] } },
    }),
  );
  return config;
}

function lines(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

/** Calls w__witness with fresh ids until `stop()`; each id the client saw answered goes into `answered`. */
async function callLoop(
  c: SdkClientOfServe,
  prefix: string,
  answered: string[],
  stop: () => boolean,
): Promise<void> {
  for (let i = 0; !stop(); i++) {
    const id = `${prefix}-${i}`;
    try {
      const r = await c.client.callTool(
        { name: "w__witness", arguments: { id } },
        {
          timeout: 20_000,
        },
      );
      if (JSON.stringify(r).includes(`witnessed ${id}`)) answered.push(id);
    } catch {
      // The gateway was killed under this call: it may or may not have run.
      return;
    }
  }
}

/** Every ToolCallStarted's `id` argument (payloads are recorded), and every event. */
async function logged(
  db: string,
  dir: string,
): Promise<{ started: Set<string>; all: StoredEvent[] }> {
  const store: SessionStore = await openStore(resolveDatabasePath(db, {}, dir, dir), "read");
  try {
    const all: StoredEvent[] = [];
    for (;;) {
      const page = await store.readAll({ after: all.at(-1)?.globalPosition ?? 0, limit: 1000 });
      all.push(...page);
      if (page.length < 1000) break;
    }
    const started = new Set<string>();
    for (const { event } of all)
      if (event.type === "ToolCallStarted") {
        const id = (event.arguments as { id?: unknown } | undefined)?.id;
        if (typeof id === "string") started.add(id);
      }
    return { started, all };
  } finally {
    await store.close();
  }
}

async function cli(args: string[], dir: string): Promise<string> {
  const r = await runCli(args, { cwd: dir, env: cleanEnv(dir) });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

describeEachStore("serve killed at random points (L1, L3)", (store) => {
  test("every call the upstream ran or the client saw answered has its start; the next serve ends the killed one's conversations as lost", async () => {
    const dir = tempDir();
    const db = store.fresh(dir, "killed");
    const file = join(dir, "witness.txt");
    writeFileSync(file, "");
    const config = witnessConfig(dir, file);
    const answered: string[] = [];
    const killedConversations: string[] = [];
    let serve: ServeProcess | undefined;
    try {
      for (let round = 0; round < 3; round++) {
        serve = await startServeHttp(["--config", config, "--db", db, "--record-payloads"], dir);
        if (round > 0)
          // L3: the one killed before is found gone (its process is no longer running) and ended.
          await eventually(
            () => /ended as lost/.test(serve!.stderr()),
            "the new serve ending the killed one's conversation",
            20_000,
          );
        const clients = [
          await sdkClientOverHttp(serve.url, serve.stderr),
          await sdkClientOverHttp(serve.url, serve.stderr),
        ];
        let stop = false;
        const before = answered.length;
        const loops = clients.map((c, k) => callLoop(c, `r${round}c${k}`, answered, () => stop));
        await eventually(() => answered.length >= before + 30, "30 answered calls", 60_000);
        // A random point: right after an answer, or a few milliseconds into the next calls.
        await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 25)));
        serve.child.kill("SIGKILL");
        stop = true;
        await Promise.all(loops);
        for (const c of clients) await c.close().catch(() => undefined);
        const sessions = JSON.parse(await cli(["sessions", "--json", "--db", db], dir)) as {
          session: string;
          status?: string;
        }[];
        killedConversations.push(
          ...sessions
            .map((s) => s.session)
            .filter((s) => s.startsWith("conv-") && !killedConversations.includes(s)),
        );
      }
      // The last one killed is ended by a serve started after it.
      serve = await startServeHttp(["--config", config, "--db", db], dir);
      await eventually(() => /ended as lost/.test(serve!.stderr()), "the last kill's end", 20_000);
      await serve.stop();
      serve = undefined;

      const { started, all } = await logged(db, dir);
      const witnessed = lines(file);
      expect(witnessed.length).toBeGreaterThanOrEqual(90);
      // L1: nothing ran upstream, and no client saw an answer, without its start in the log.
      expect(witnessed.filter((id) => !started.has(id))).toEqual([]);
      expect(answered.filter((id) => !started.has(id))).toEqual([]);

      // L3: every killed conversation is closed as lost, with when it was last seen.
      // Two clients, two conversations, per round.
      expect(killedConversations).toHaveLength(6);
      for (const id of killedConversations) {
        const closes = all.filter(
          (e) => e.streamId === id && e.event.type === "ConversationClosed",
        );
        expect(
          closes.map((e) => e.event),
          id,
        ).toEqual([expect.objectContaining({ reason: "lost", lastSeen: expect.any(String) })]);
      }
      const audit = JSON.parse(await cli(["audit", "--calls", "--json", "--db", db], dir)) as {
        calls: { sessionId: string; outcome: string | null; reason: string | null }[];
      };
      // Nothing is left open: a call that was running when its gateway died is `unknown`.
      expect(audit.calls.filter((c) => c.outcome === null)).toEqual([]);
      for (const c of audit.calls.filter((c) => c.outcome === "unknown"))
        expect(c.reason).toBe("LOST");
      const list = await cli(["sessions", "--db", db], dir);
      for (const id of killedConversations) expect(list).toMatch(new RegExp(`${id}.*lost`));
      const replay = await cli(["replay", killedConversations[0]!, "--db", db], dir);
      expect(replay).toContain("conversation lost: its gateway stopped without closing it");

      // The view says so too, in a real browser.
      if (chromiumSkipReason() !== null) return;
      const page = join(dir, "view.html");
      await cli(["view", killedConversations[0]!, "--db", db, "--out", page], dir);
      const browser = await launchChromium();
      try {
        const w = await watchedPage(browser);
        await w.page.goto(pathToFileURL(page).href);
        // The timeline renders only the rows in sight: search for the ending, as a user would.
        await w.page.locator("[data-testid=search]").fill("conversation lost");
        await expect
          .poll(() => w.page.locator("[data-testid=timeline]").textContent(), { timeout: 20_000 })
          .toContain("conversation lost: its gateway stopped without closing it");
        expect(w.problems).toEqual([]);
      } finally {
        await browser.close();
      }
    } finally {
      serve?.child.kill("SIGKILL");
    }
  }, 300_000);
});

const binaries = findPostgresBinaries();

describe.skipIf(binaries === null && !process.env.CI)(
  `three serves on one PostgreSQL, a restart of the server, one serve SIGKILLed (L1, L3)${binaries === null ? " (skipped: no PostgreSQL server binaries)" : ""}`,
  () => {
    test("every call the upstream ran or a client saw answered has its start; the survivors end the killed serve's conversations as lost", async () => {
      const cluster: ThrowawayCluster = await startThrowawayCluster();
      const dir = tempDir();
      const file = join(dir, "witness.txt");
      writeFileSync(file, "");
      const config = witnessConfig(dir, file);
      const serves: ServeProcess[] = [];
      const answered: string[] = [];
      try {
        for (let i = 0; i < 3; i++)
          serves.push(
            await startServeHttp(
              ["--config", config, "--db", cluster.url, "--record-payloads"],
              dir,
            ),
          );
        const clients = await Promise.all(
          serves.flatMap((s) => [
            sdkClientOverHttp(s.url, s.stderr),
            sdkClientOverHttp(s.url, s.stderr),
          ]),
        );
        const stopped = new Set<number>();
        let stop = false;
        const loops = clients.map((c, k) =>
          callLoop(c, `c${k}`, answered, () => stop || stopped.has(Math.floor(k / 2))),
        );
        await eventually(() => answered.length >= 60, "60 answered calls", 60_000);
        // The database goes away and comes back under load: calls wait for their starts.
        await cluster.restart("fast");
        const before = answered.length;
        await eventually(() => answered.length >= before + 60, "60 more answered calls", 60_000);
        // A random point in serve 0's work.
        await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 25)));
        serves[0]!.child.kill("SIGKILL");
        stopped.add(0);
        const after = answered.length;
        await eventually(() => answered.length >= after + 30, "30 more on the survivors", 60_000);
        // L3: a survivor finds serve 0 gone (its process no longer runs) and ends its conversations.
        await eventually(
          () => serves.slice(1).some((s) => /ended as lost/.test(s.stderr())),
          "a survivor ending the killed serve's conversations",
          30_000,
        );
        stop = true;
        await Promise.all(loops);
        for (const c of clients) await c.close().catch(() => undefined);
        for (const s of serves.slice(1)) await s.stop();

        const { started, all } = await logged(cluster.url, dir);
        const witnessed = lines(file);
        expect(witnessed.filter((id) => !started.has(id))).toEqual([]);
        expect(answered.filter((id) => !started.has(id))).toEqual([]);
        // No conversation is left open: the survivors closed theirs, the killed one's are lost.
        const opened = new Set(
          all.filter((e) => e.event.type === "ConversationStarted").map((e) => e.streamId),
        );
        const closed = new Map(
          all
            .filter((e) => e.event.type === "ConversationClosed")
            .map((e) => [e.streamId, e.event] as const),
        );
        expect(opened.size).toBe(6);
        expect([...opened].filter((id) => !closed.has(id))).toEqual([]);
        const lost = [...closed.values()].filter((e) => "reason" in e && e.reason === "lost");
        expect(lost).toHaveLength(2);
      } finally {
        for (const s of serves) s.child.kill("SIGKILL");
        await cluster.remove();
      }
    }, 240_000);
  },
);
