import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { foldConversation, readConversationLog, type State } from "@toolledger/core";
import { openSqliteEventStore } from "@toolledger/store-sqlite";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Conversation } from "../conversation/conversation.js";
import { openHost } from "../host/toolledgerHost.js";
import { shipped } from "../testing/fixtures.js";
import { gatewayTools } from "./gatewayTools.js";
import { serveGatewayHttp } from "./serveGatewayHttp.js";

// C1, property over real processes: replaying a conversation alone (its stream and its
// registry stream, read back from the SQLite file) reproduces, at every point, exactly the
// tool list the live gateway served its client.

type Op =
  | { op: "enable"; names: string[] }
  | { op: "call"; name: string }
  | { op: "registry"; tool: string }
  | { op: "clear" }
  | { op: "compact" };

const NAMES = [
  "notes__add_note",
  "notes__search_notes",
  "calc__calculate",
  "changing__ping",
  "notes__nope",
];
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("enable" as const),
      names: fc.subarray(NAMES, { minLength: 1, maxLength: 2 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("call" as const), name: fc.constantFrom(...NAMES) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("registry" as const),
      tool: fc.constantFrom("t1", "t2", "t3"),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "compact" as const }) },
);

interface Served {
  /** The store's last global position when the client listed. */
  head: number;
  tools: unknown[];
}

describe("C1: replay reproduces what the gateway served", () => {
  it("at every point of random sessions over real servers", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 7 }), async (ops) => {
        const dir = mkdtempSync(join(tmpdir(), "toolledger-served-"));
        const store = openSqliteEventStore(join(dir, "events.db"));
        const host = await openHost({ store, requestTimeoutMs: 5_000, refetchDebounceMs: 10 });
        let conversation: Conversation | undefined;
        const gateway = await serveGatewayHttp(host, {
          conversation: { deferral: { mode: "lookup" }, followIntervalMs: 0 },
          onConversation: (c) => {
            if (c.type === "opened") conversation = c.conversation;
          },
        });
        const client = new Client({ name: "property", version: "1" });
        try {
          await host.addExtensions([
            shipped("notes", "notes"),
            shipped("calc", "calculator"),
            shipped("changing", "changing"),
          ]);
          await client.connect(new StreamableHTTPClientTransport(gateway.url));
          const served: Served[] = [];
          const record = async () => {
            await host.settled();
            const { tools } = await client.listTools();
            const all = await store.readAll({ limit: 100_000 });
            served.push({ head: all.at(-1)!.globalPosition, tools });
          };
          await record();
          for (const o of ops) {
            if (o.op === "enable")
              await client.callTool({ name: "enable_tools", arguments: { names: o.names } });
            else if (o.op === "call")
              await client.callTool({ name: o.name, arguments: {} }).catch((error: unknown) => {
                // G2: a name that is no tool is the protocol error -32602, not a tool result.
                if (
                  !(
                    error instanceof ProtocolError &&
                    error.code === -32602 &&
                    o.name === "notes__nope"
                  )
                )
                  throw error;
              });
            else if (o.op === "registry")
              await host.callUpstream("changing", "add_tool", { name: o.tool });
            else if (o.op === "clear") await conversation!.clear();
            else await conversation!.compact();
            await record();
          }
          const log = await readConversationLog(store, conversation!.id);
          const steps = [...foldConversation(log.events, log.registries)];
          for (const point of served) {
            let state: State | undefined;
            for (const step of steps)
              if (step.stored.globalPosition <= point.head) state = step.state;
            expect(JSON.parse(JSON.stringify(gatewayTools(state!)))).toEqual(point.tools);
          }
        } finally {
          await client.close();
          await gateway.close();
          await host.close();
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 4 },
    );
  }, 180_000);
});
