import { InMemoryEventStore, readWholeStream, type StoredEvent } from "@toolledger/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DECLINED,
  dispatchError,
  type Msg,
  malformedRequest,
  text,
  toolRequest,
  toolResponse,
} from "../../testing/goose/gooseMessages.js";
import { enableMatcher } from "./gooseDeferral.js";
import { EMPTY_TOKENS, type GooseSession } from "./gooseSession.js";
import { importGooseSession } from "./importGooseSession.js";

/** One generated goose turn: requests of the assistant, then the responses goose stored. */
const answerArb = fc.constantFrom("ok", "isError", "declined", "dispatch", "unknown", "none");
const turnArb = fc.record({
  requests: fc.array(
    fc.record({
      tool: fc.constantFrom(
        "developer__shell",
        "github__create_issue",
        "memory__add_note",
        "nosuch__x",
        "extensionmanager__load_tools",
      ),
      malformed: fc.boolean(),
      answer: answerArb,
    }),
    { minLength: 1, maxLength: 3 },
  ),
  noise: fc.constantFrom(null, "someFutureBlock", "summarizationRequested", "image"),
  compactAfter: fc.boolean(),
});

function toSession(turns: readonly Turn[]): GooseSession {
  const messages: Msg[] = [];
  let t = 1_700_000_000;
  let n = 0;
  turns.forEach((turn) => {
    messages.push({
      role: "user",
      created: t++,
      content: [text("go")],
      metadata: { userVisible: true, agentVisible: true },
    });
    const ids = turn.requests.map(() => `call_${n++}`);
    messages.push({
      role: "assistant",
      created: t++,
      content: [
        ...turn.requests.map((r, i) =>
          r.malformed
            ? malformedRequest(ids[i]!, "{")
            : toolRequest(
                ids[i]!,
                r.tool,
                r.tool.endsWith("load_tools") ? { names: ["github__create_issue"] } : { a: 1 },
              ),
        ),
        ...(turn.noise ? [{ type: turn.noise, msg: "x" }] : []),
      ],
      metadata: { userVisible: true, agentVisible: true },
    });
    const responses = turn.requests.flatMap((r, i): unknown[] => {
      const id = ids[i]!;
      switch (r.answer) {
        case "ok":
          return [
            toolResponse(id, r.tool.endsWith("load_tools") ? "## github__create_issue\nx" : "fine"),
          ];
        case "isError":
          return [toolResponse(id, "bad", { isError: true })];
        case "declined":
          return [toolResponse(id, DECLINED)];
        case "dispatch":
          return [dispatchError(id, -32603, "boom")];
        case "unknown":
          return [dispatchError(id, -32602, `Tool '${r.tool}' not found`)];
        default:
          return [];
      }
    });
    if (responses.length > 0)
      messages.push({
        role: "user",
        created: t++,
        content: responses,
        metadata: { userVisible: true, agentVisible: true },
      });
    if (turn.compactAfter) {
      for (const m of messages) m.metadata = { ...m.metadata, agentVisible: false };
      messages.push({
        role: "user",
        created: t,
        content: [text(`summary ${t}`)],
        metadata: { userVisible: false, agentVisible: true },
      });
      messages.push({
        role: "assistant",
        created: t++,
        content: [
          text(
            "Your context was compacted. The previous message contains a summary of the conversation so far.",
          ),
        ],
        metadata: { userVisible: false, agentVisible: true },
      });
    }
  });
  return {
    id: "20261130_1",
    format: "sqlite",
    path: "/fixture/sessions.db",
    schemaVersion: 16,
    name: "generated",
    workingDir: "/w",
    sessionType: "user",
    parentSessionId: null,
    createdAt: null,
    updatedAt: null,
    extensionData: {
      "enabled_extensions.v0": {
        extensions: [
          { type: "stdio", name: "developer" },
          { type: "stdio", name: "github" },
        ],
      },
    },
    tokens: EMPTY_TOKENS,
    usageLedger: [],
    messages: messages.map((m, i) => ({
      messageId: `m${i}`,
      role: m.role,
      created: m.created,
      content: m.content,
      userVisible: m.metadata.userVisible,
      agentVisible: m.metadata.agentVisible,
      place: `row ${i}`,
    })),
  };
}
type Turn = {
  requests: { tool: string; malformed: boolean; answer: string }[];
  noise: string | null;
  compactAfter: boolean;
};

const options = {
  prefix: "goose-",
  matcher: enableMatcher(),
  loggedTools: new Map(),
  hostname: "h",
  toolledgerVersion: "t",
};

function calls(evs: readonly StoredEvent[]) {
  const started = evs
    .filter((e) => e.event.type === "ToolCallStarted")
    .map((e) => (e.event as { callId: string }).callId);
  const finished = evs
    .filter((e) => e.event.type === "ToolCallFinished")
    .map((e) => (e.event as { callId: string }).callId);
  return { started, finished };
}

describe("import goose, property-tested against generated goose conversations (issue 26, C4)", () => {
  it("every request/response pair becomes exactly one call; a request without a response one started call; re-import adds nothing", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turnArb, { minLength: 1, maxLength: 6 }), async (turns) => {
        const session = toSession(turns as Turn[]);
        const store = new InMemoryEventStore();
        const first = await importGooseSession(store, session, options);
        const evs = await readWholeStream(store, "goose-20261130_1");
        const { started, finished } = calls(evs);
        const requests = turns.flatMap((t) => t.requests);
        const answered = requests.filter((r) => r.answer !== "none").length;
        expect(started.length).toBe(requests.length);
        expect(new Set(started).size).toBe(started.length);
        expect(finished.length).toBe(answered);
        expect(new Set(finished).size).toBe(finished.length);
        for (const id of finished) expect(started).toContain(id);
        expect(evs.filter((e) => e.event.type === "Compacted").length).toBe(
          turns.filter((t) => t.compactAfter).length,
        );
        const skippedExpected = turns.filter(
          (t) => t.noise === "someFutureBlock" || t.noise === "summarizationRequested",
        ).length;
        expect(Object.values(first.skipped).reduce((a, b) => a + b, 0)).toBe(skippedExpected);
        const again = await importGooseSession(store, session, options);
        expect(again.added).toBe(0);
      }),
      { numRuns: 60 },
    );
  });

  it("importing a prefix of the session, then the whole, records the same calls as importing the whole once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnArb, { minLength: 2, maxLength: 5 }),
        fc.nat(),
        async (turns, cut) => {
          const whole = toSession(turns as Turn[]);
          const prefix = {
            ...whole,
            messages: whole.messages.slice(0, 1 + (cut % whole.messages.length)),
          };
          const once = new InMemoryEventStore();
          await importGooseSession(once, whole, options);
          const twice = new InMemoryEventStore();
          await importGooseSession(twice, prefix, options);
          await importGooseSession(twice, whole, options);
          const shape = async (s: InMemoryEventStore) =>
            (await readWholeStream(s, "goose-20261130_1"))
              .filter((e) => e.event.type.startsWith("ToolCall"))
              .map(
                (e) =>
                  `${e.event.type} ${(e.event as { callId: string }).callId} ${(e.event as { outcome?: string }).outcome ?? ""}`,
              )
              .sort();
          expect(await shape(twice)).toEqual(await shape(once));
        },
      ),
      { numRuns: 40 },
    );
  });
});
