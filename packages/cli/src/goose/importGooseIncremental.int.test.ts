import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoredEvent } from "@toolledger/core";
import { describe, expect, it } from "vitest";
import { GooseDatabase } from "../../testing/goose/gooseDatabase.js";
import { writeExport, writeLegacyJsonl } from "../../testing/goose/gooseFiles.js";
import {
  assistantCalls,
  call,
  toolRequest,
  toolResponse,
  userResponses,
  userText,
} from "../../testing/goose/gooseMessages.js";
import {
  SCENARIO_EXTENSIONS,
  scenarioMessages,
  writeScenarioDatabase,
} from "../../testing/goose/gooseScenario.js";
import {
  events,
  importAll,
  readAllSessions,
  withStore,
} from "../../testing/goose/importForTest.js";
import { enableMatcher } from "./gooseDeferral.js";
import { importGooseSession } from "./importGooseSession.js";
import { readGooseFile } from "./readGooseFile.js";
import { readRequestLogs } from "./readRequestLogs.js";

const dir = () => mkdtempSync(join(tmpdir(), "toolledger-goose-"));
const types = (evs: readonly StoredEvent[]) =>
  evs.map((e) => `${e.event.type}[${e.event.origin?.kind}]`);

describe("import goose: idempotent and incremental (issue 26)", () => {
  it("importing the same database twice adds nothing", async () => {
    const d = dir();
    const { file } = writeScenarioDatabase(join(d, "sessions.db"), 16);
    await withStore(join(d, "ledger.db"), async (store) => {
      const first = await importAll(store, readAllSessions(file));
      const again = await importAll(store, readAllSessions(file));
      expect(first.reduce((n, r) => n + r.added, 0)).toBeGreaterThan(30);
      expect(again.map((r) => r.added)).toEqual([0, 0]);
      expect(again.map((r) => r.alreadyPresent)).toEqual(first.map((r) => r.added));
    });
  });

  it("after the session grew, only what is new is added; a call in flight is finished when its response arrives", async () => {
    const d = dir();
    const g = new GooseDatabase(join(d, "sessions.db"), 16);
    const s = g.createSession({ name: "live" });
    g.setExtensions(s, SCENARIO_EXTENSIONS);
    g.addMessages(
      s,
      userText(100, "go"),
      assistantCalls(101, null, toolRequest("c1", "developer__shell", { command: "ls" })),
    );
    await withStore(join(d, "ledger.db"), async (store) => {
      await importAll(store, readAllSessions(g.db.name));
      const before = (await events(store, `goose-${s}`)).length;
      expect(types(await events(store, `goose-${s}`)).at(-1)).toBe("ToolCallStarted[exact]");
      g.addMessages(
        s,
        userResponses(102, toolResponse("c1", "a b c")),
        ...call(103, "c2", "developer__shell", { command: "pwd" }, toolResponse("c2", "/")),
      );
      const [r] = await importAll(store, readAllSessions(g.db.name));
      const after = await events(store, `goose-${s}`);
      expect(r!.added).toBe(3);
      expect(types(after.slice(before))).toEqual([
        "ToolCallFinished[exact]",
        "ToolCallStarted[exact]",
        "ToolCallFinished[exact]",
      ]);
      expect(after.at(-3)!.event).toMatchObject({ callId: "c1", outcome: "ok", durationMs: 1000 });
    });
    g.close();
  });

  it("a /clear goose left a marker of is an exact Cleared; one without a marker is inferred (D8)", async () => {
    for (const marker of [true, false]) {
      const d = dir();
      const g = new GooseDatabase(join(d, "sessions.db"), marker ? 16 : 5);
      const s = g.createSession({ name: "cleared" });
      g.setExtensions(s, SCENARIO_EXTENSIONS);
      g.addMessages(s, ...scenarioMessages(1000).slice(0, 17));
      await withStore(join(d, "ledger.db"), async (store) => {
        await importAll(store, readAllSessions(g.db.name));
        const n = (await events(store, `goose-${s}`)).length;
        if (marker) g.clear(s, 2000);
        else g.clearWithoutMarker(s);
        g.addMessages(
          s,
          userText(2001, "again"),
          ...call(2002, "c9", "developer__shell", {}, toolResponse("c9", "ok")),
        );
        await importAll(store, readAllSessions(g.db.name));
        const evs = await events(store, `goose-${s}`);
        expect(types(evs.slice(n))).toEqual([
          marker ? "Cleared[exact]" : "Cleared[inferred]",
          "ToolCallStarted[exact]",
          "ToolCallFinished[exact]",
        ]);
        // The enable of the load_tools call before the clear is gone (D8).
        const { loadConversationState } = await import("@toolledger/core");
        const { state } = await loadConversationState(store, `goose-${s}`);
        expect(state.enabled).toEqual([]);
        // Everything from before the clear is still in the ledger.
        expect(evs.filter((e) => e.event.type === "ToolCallStarted").length).toBe(9);
      });
      g.close();
    }
  });

  it("a manual /compact is a Compacted noting the user asked; the enabled set survives it (D7)", async () => {
    const d = dir();
    const g = new GooseDatabase(join(d, "sessions.db"), 16);
    const s = g.createSession({ name: "compact" });
    g.setExtensions(s, SCENARIO_EXTENSIONS);
    g.addMessages(s, ...scenarioMessages(1000));
    g.compact(s, 1100, "summary", true);
    await withStore(join(d, "ledger.db"), async (store) => {
      await importAll(store, readAllSessions(g.db.name));
      const evs = await events(store, `goose-${s}`);
      const compacted = evs.find((e) => e.event.type === "Compacted")!.event;
      expect(compacted.origin?.note).toMatch(/\/compact/);
      expect(compacted).toMatchObject({ enabled: ["github__list_repos"] });
    });
    g.close();
  });
});

describe("import goose: shrunk counterexamples of the property test", () => {
  it("two compactions are two Compacted (the second makes the first's continuation agent-invisible too)", async () => {
    const d = dir();
    const g = new GooseDatabase(join(d, "sessions.db"), 16);
    const s = g.createSession({ name: "twice" });
    g.addMessages(s, ...call(100, "c1", "developer__shell", {}, toolResponse("c1", "ok")));
    g.compact(s, 110, "first", false);
    g.addMessages(s, ...call(120, "c2", "developer__shell", {}, toolResponse("c2", "ok")));
    g.compact(s, 130, "second", false);
    await withStore(join(d, "ledger.db"), async (store) => {
      await importAll(store, readAllSessions(g.db.name));
      expect(
        types(await events(store, `goose-${s}`)).filter((t) => t.startsWith("Compacted")),
      ).toHaveLength(2);
    });
    g.close();
  });
});

describe("import goose: export JSON and legacy JSONL files (issue 26)", () => {
  it("`goose session export --format json` imports with the same calls as the database", async () => {
    const d = dir();
    const { file, main } = writeScenarioDatabase(join(d, "sessions.db"), 16);
    const g = new GooseDatabase(join(d, "other.db"), 16);
    g.close();
    const { default: Database } = await import("better-sqlite3");
    const src = new Database(file, { readonly: true });
    const fake = {
      db: src,
      conversation: (id: string) =>
        readAllSessions(file)
          .find((x) => x.id === id)!
          .messages.map((m) => ({
            role: m.role as "user",
            created: m.created,
            content: m.content,
            metadata: { userVisible: m.userVisible, agentVisible: m.agentVisible },
          })),
    } as unknown as GooseDatabase;
    writeExport(fake, main, join(d, "export.json"));
    src.close();
    const session = readGooseFile(join(d, "export.json"));
    expect(session.format).toBe("export");
    await withStore(join(d, "a.db"), async (a) => {
      await withStore(join(d, "b.db"), async (b) => {
        await importAll(
          a,
          readAllSessions(file).filter((x) => x.id === main),
        );
        await importAll(b, [session]);
        const calls = async (st: typeof a) =>
          (await events(st, `goose-${main}`))
            .filter((e) => e.event.type.startsWith("ToolCall"))
            .map((e) => JSON.stringify({ ...e.event, origin: { ...e.event.origin, source: "-" } }));
        expect(await calls(b)).toEqual(await calls(a));
      });
    });
  });

  it("a legacy <id>.jsonl (metadata line, messages, `Vec<Content>` results) imports; unknown and legacy blocks are skipped and counted", async () => {
    const d = dir();
    // Before CallToolResult, goose kept a result as `Vec<Content>`, and a tool's failure as
    // mcp_core's ToolError (`Execution failed: …`) with `status: "error"`.
    const messages = scenarioMessages(1000).map((m) => ({
      ...m,
      content: m.content.map((c) => {
        const b = c as {
          type: string;
          toolResult?: {
            status: string;
            value?: { content?: { text: string }[]; isError?: boolean };
          };
        };
        if (b.type !== "toolResponse" || b.toolResult?.status !== "success") return c;
        const v = b.toolResult.value!;
        return v.isError
          ? {
              ...b,
              toolResult: { status: "error", error: `Execution failed: ${v.content?.[0]?.text}` },
            }
          : { ...b, toolResult: { status: "success", value: v.content } };
      }),
    }));
    messages.push({
      role: "assistant",
      created: 1100,
      content: [{ type: "summarizationRequested", msg: "x" }, { type: "someFutureBlock" }],
      metadata: { userVisible: true, agentVisible: true },
    });
    const file = join(d, "20250301_120000.jsonl");
    writeLegacyJsonl(
      file,
      {
        working_dir: "/w",
        description: "old session",
        message_count: messages.length,
        total_tokens: 900,
        input_tokens: 800,
        output_tokens: 100,
        accumulated_total_tokens: 3000,
      },
      messages,
    );
    const session = readGooseFile(file);
    expect(session).toMatchObject({ id: "20250301_120000", format: "jsonl", name: "old session" });
    await withStore(join(d, "ledger.db"), async (store) => {
      const [r] = await importAll(store, [session]);
      expect(r!.skipped).toEqual({ summarizationRequested: 1, someFutureBlock: 1 });
      const evs = await events(store, "goose-20250301_120000");
      expect(
        evs
          .filter((e) => e.event.type === "ToolCallFinished")
          .map((e) => (e.event as { outcome: string }).outcome),
      ).toEqual([
        "ok",
        "tool_error",
        "refused",
        "refused",
        "refused",
        "ok",
        "ok",
        "ok",
        "ok",
        "ok",
      ]);
      const imported = evs.find((e) => e.event.type === "SessionImported")!.event as {
        notes: string[];
      };
      expect(imported.notes.join("\n")).toMatch(/no marker of \/clear/);
      expect(imported.notes.join("\n")).toMatch(/skipped 1 content block of type someFutureBlock/);
    });
  });

  it("tool lists come from goose's request logs when given (inferred), the rest synthesised", async () => {
    const d = dir();
    const { file, main } = writeScenarioDatabase(join(d, "sessions.db"), 16);
    const log = join(d, "llm_request.0.jsonl");
    writeFileSync(
      log,
      `${JSON.stringify({
        model_config: { model_name: "gpt-4o" },
        input: {
          model: "gpt-4o",
          messages: [],
          tools: [
            {
              type: "function",
              function: {
                name: "developer__shell",
                description: "Run a shell command",
                parameters: { type: "object", properties: { command: { type: "string" } } },
              },
            },
            {
              type: "function",
              function: {
                name: "developer__text_editor",
                description: "Edit files",
                parameters: { type: "object" },
              },
            },
          ],
        },
      })}\n{"data":{},"usage":null}\n`,
    );
    const logged = readRequestLogs([log]);
    await withStore(join(d, "ledger.db"), async (store) => {
      const session = readAllSessions(file).find((x) => x.id === main)!;
      await importGooseSession(store, session, {
        prefix: "goose-",
        matcher: enableMatcher(),
        loggedTools: logged,
        hostname: "h",
        toolledgerVersion: "t",
      });
      const fetched = (await events(store, `goose-${main}-registry`)).find(
        (e) => e.event.type === "ToolsFetched" && e.event.extension === "developer",
      )!.event;
      expect(fetched.origin?.kind).toBe("inferred");
      expect(
        (fetched as { tools: { name: string; description?: string }[] }).tools.map(
          (t) => `${t.name}: ${t.description}`,
        ),
      ).toEqual(["shell: Run a shell command", "text_editor: Edit files"]);
    });
  });
});
