import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Command,
  decide,
  type EventStore,
  type EventToAppend,
  type ExpectedVersion,
  loadConversationState,
  type SessionStore,
} from "@toolledger/core";
import { openPostgresEventStore } from "@toolledger/store-postgres";
import { describeWithPostgres, uniqueSchema } from "@toolledger/store-postgres/vitest";
import { openSqliteEventStore } from "@toolledger/store-sqlite";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConversation } from "../conversation/conversation.js";
import { openHost, type ToolledgerHost } from "../host/toolledgerHost.js";
import { judgeCalls } from "../testing/d9Judgement.js";
import { shipped } from "../testing/fixtures.js";
import { newEventId } from "./newEventId.js";

// L2, as a law: two writers on one conversation stream (the gateway deciding calls written
// ahead, and another process appending clears and compactions with expected versions, as
// `toolledger clear` does), interleaved at every point a schedule picks, on SQLite and on
// PostgreSQL. Whatever the interleaving, the audit's D9 judgement of the stored order agrees
// with what each caller was told: a call that ran was not deferred where it is stored, and a
// call refused as deferred is stored where it was deferred.

type Step =
  /** Calls made together; `gaps[i]`: a turn of the event loop passes before call i + 1 (so it is decided while an earlier one's commit is on its way). */
  | { kind: "calls"; n: number; gaps: boolean[] }
  | { kind: "enable" }
  | { kind: "outside"; command: "Clear" | "Compact" };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(fc.boolean(), { minLength: 1, maxLength: 4 })
      .map((gaps) => ({ kind: "calls", n: gaps.length, gaps }) as const),
  },
  { weight: 2, arbitrary: fc.constant({ kind: "enable" } as const) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom("Clear", "Compact")
      .map((command) => ({ kind: "outside", command }) as const),
  },
);

/** The other process: decides against the folded conversation, appends with its version, retries. */
async function appendOutside(
  store: EventStore,
  id: string,
  type: "Clear" | "Compact",
): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const { state, version } = await loadConversationState(store, id);
    const d = decide(state, { type, at: new Date().toISOString() } as Command);
    if (!d.ok) throw new Error(d.error.message);
    const r = await store.append(
      id,
      d.events.map((event) => ({ eventId: newEventId(), event })),
      version,
    );
    if (r.ok) return;
    if (r.error.code !== "VERSION_CONFLICT") throw new Error(r.error.code);
  }
  throw new Error("the outside writer never got its turn");
}

/**
 * The gateway's store, with another process's appends put right before some of its own
 * (`injections`, consumed one per append of the conversation: an outside command or nothing).
 */
class Interleaved {
  injections: ("Clear" | "Compact" | null)[] = [];
  conversation = "";
  constructor(
    readonly inner: SessionStore,
    readonly outside: SessionStore,
  ) {}
  wrap(): EventStore {
    const inner = this.inner;
    const self = this;
    return new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop === "append")
          return async (
            streamId: string,
            events: readonly EventToAppend[],
            expected?: ExpectedVersion,
          ) => {
            if (streamId === self.conversation) {
              const next = self.injections.shift();
              if (next) await appendOutside(self.outside, self.conversation, next);
            }
            return target.append(streamId, events, expected);
          };
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
}

function interleavingLaw(
  name: string,
  open: () => Promise<{ gateway: SessionStore; outside: SessionStore }>,
) {
  describe(`L2 two writers on one conversation, any interleaving: ${name}`, () => {
    let stores: { gateway: SessionStore; outside: SessionStore };
    let interleaved: Interleaved;
    let host: ToolledgerHost;
    beforeAll(async () => {
      stores = await open();
      interleaved = new Interleaved(stores.gateway, stores.outside);
      host = await openHost({ store: interleaved.wrap(), requestTimeoutMs: 10_000, lease: false });
      await host.addExtensions([shipped("calc", "calculator")]);
    }, 60_000);
    afterAll(async () => {
      await host?.close();
      await stores?.gateway.close();
      await stores?.outside.close();
    });

    it("the audit's D9 judgement of the stored order is what each caller was told", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(step, { minLength: 3, maxLength: 12 }),
          fc.array(fc.constantFrom<"Clear" | "Compact" | null>(null, null, "Clear", "Compact"), {
            maxLength: 30,
          }),
          async (steps, injections) => {
            const c = await openConversation(host, {
              followIntervalMs: 0,
              deferral: { mode: "lookup" },
            });
            interleaved.conversation = c.id;
            interleaved.injections = [...injections];
            const told = new Map<string, "ran" | "deferred">();
            let n = 0;
            for (const s of steps) {
              if (s.kind === "enable") {
                await c.callTool(
                  "enable_tools",
                  { names: ["calc__calculate"] },
                  { recordFinishAfterAnswer: true },
                );
              } else if (s.kind === "outside") {
                await appendOutside(stores.outside, c.id, s.command);
              } else {
                // Calls made together: their decisions share commits, and injections land among them.
                const calls: Promise<void>[] = [];
                for (let i = 0; i < s.n; i++) {
                  if (i > 0 && s.gaps[i]) await new Promise((r) => setImmediate(r));
                  calls.push(
                    (async () => {
                      const callId = `k${n++}`;
                      const r = await c.callTool(
                        "calc__calculate",
                        { expression: "1 + 1" },
                        { recordFinishAfterAnswer: true, callId },
                      );
                      if (r.ok) told.set(callId, "ran");
                      else if (r.error.code === "TOOL_NOT_ENABLED") told.set(callId, "deferred");
                      else throw new Error(`${callId}: ${r.error.code}`);
                    })(),
                  );
                }
                await Promise.all(calls);
              }
            }
            interleaved.injections = [];
            await c.close("done");
            const judged = await judgeCalls(stores.gateway, c.id);
            const calls = judged.filter((j) => j.publicName === "calc__calculate");
            expect(calls).toHaveLength(told.size);
            for (const j of calls) {
              const saw = told.get(j.callId);
              expect(j.deferred, `${j.callId}: told ${saw}`).toBe(saw === "deferred");
              expect(j.outcome).toBe(saw === "ran" ? "ok" : "refused");
            }
          },
        ),
        { numRuns: 40 },
      );
    }, 240_000);
  });
}

interleavingLaw("SQLite (two connections to one file)", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "toolledger-l2-")), "l2.db");
  return { gateway: openSqliteEventStore(file), outside: openSqliteEventStore(file) };
});

describeWithPostgres("L2 on PostgreSQL", (url) => {
  interleavingLaw("PostgreSQL (two stores on one schema)", async () => {
    const u = new URL(url);
    u.searchParams.set("schema", uniqueSchema("l2"));
    const gateway = await openPostgresEventStore(u.href);
    return { gateway, outside: await openPostgresEventStore(u.href) };
  });
});
