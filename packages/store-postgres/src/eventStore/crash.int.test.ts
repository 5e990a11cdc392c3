import { fileURLToPath } from "node:url";
import {
  assertLogInvariants,
  expectAcknowledgedBatches,
  spawnWorker,
  watchWorker,
} from "@toolledger/core/testing";
import { afterAll, expect, it } from "vitest";
import { describeWithPostgres, dropSchemas, uniqueSchema } from "../../testing/testServer.js";
import { PostgresEventStore } from "./postgresEventStore.js";

const WORKER = fileURLToPath(new URL("../../dist/testing/storeWorker.js", import.meta.url));
const ROUNDS = 3;
const WRITERS = 3;

describeWithPostgres("crash: writer processes killed with SIGKILL mid-append", (url) => {
  const schemas: string[] = [];
  afterAll(() => dropSchemas(url, schemas));

  it("loses no acknowledged batch and leaves no partial one; the server stays up and the log stays ordered", async () => {
    const schema = uniqueSchema("crash");
    schemas.push(schema);
    const env = { TOOLLEDGER_WORKER_URL: url };
    const acknowledged = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      // Several writers at once, so a kill can land while another holds the head lock.
      const runs = Array.from({ length: WRITERS }, (_, w) => {
        const prefix = `r${round}w${w}`;
        let acks = -1;
        let markAcked: () => void = () => {};
        const firstAck = new Promise<void>((resolve) => {
          markAcked = resolve;
        });
        const run = watchWorker(spawnWorker(WORKER, ["crash", schema, prefix], env), (line) => {
          if (line.startsWith("ack ")) {
            acks = Number(line.slice(4));
            markAcked();
          }
        });
        run.child.once("exit", () => markAcked());
        return { ...run, prefix, firstAck, acks: () => acks };
      });
      await Promise.all(runs.map((r) => Promise.race([r.ready, r.exit])));
      // Killed once appends are under way, at a random moment of each writer's loop.
      await Promise.all(runs.map((r) => r.firstAck));
      for (const r of runs) {
        expect(r.child.exitCode, `${r.prefix} exited early`).toBeNull();
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 60));
        r.child.kill("SIGKILL");
      }
      for (const r of runs) {
        expect(await r.exit).toEqual({ code: null, signal: "SIGKILL" });
        acknowledged.set(r.prefix, r.acks());
      }
    }

    const store = await PostgresEventStore.open(url, { schema, create: false });
    try {
      const all = await store.readAll({ limit: 1_000_000 });
      assertLogInvariants(all);
      expect(all.map((e) => e.globalPosition)).toEqual(all.map((_, i) => i + 1));
      const acked = expectAcknowledgedBatches(all, acknowledged);
      expect(acked).toBeGreaterThanOrEqual(ROUNDS * WRITERS);
      // The server kept serving: a new append goes right after the last position.
      const next = await store.append("after", [
        { eventId: "after-0", event: { type: "Cleared", v: 1 } },
      ]);
      expect(next).toMatchObject({ ok: true, firstGlobalPosition: all.length + 1 });
    } finally {
      await store.close();
    }
  }, 120_000);
});
