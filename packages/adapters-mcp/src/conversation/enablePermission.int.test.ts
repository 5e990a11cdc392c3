import type { ToolledgerEvent } from "@toolledger/core";
import { afterEach, describe, expect, it } from "vitest";
import { shipped } from "../testing/fixtures.js";
import type { ConversationOptions, EnableRequest } from "./conversationOptions.js";
import {
  openStandaloneConversation,
  type StandaloneConversation,
} from "./standaloneConversation.js";

// Issue 11.3 (D5): a host whose permission layer sits between the model's enable_tools
// request and its outcome, against a real MCP server.

const open: StandaloneConversation[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function session(authorizeEnable?: ConversationOptions["authorizeEnable"]) {
  const s = await openStandaloneConversation({
    conversation: {
      deferral: { mode: "lookup" },
      ...(authorizeEnable ? { authorizeEnable } : {}),
    },
  });
  open.push(s);
  await s.addExtension(shipped("notes", "notes"));
  return s;
}

const enableEvents = async (s: StandaloneConversation): Promise<ToolledgerEvent[]> =>
  (await s.store.readStream(s.streamId))
    .map((e) => e.event)
    .filter((e) => e.type === "EnableToolsRequested" || e.type === "EnableToolsResponded");

describe("issue 11.3 D5: request now, decide later", () => {
  it("D5 the model's enable_tools goes through the host's hook: a denial is recorded with the host's reason", async () => {
    const asked: EnableRequest[] = [];
    const s = await session((request) => {
      asked.push(request);
      return { approve: false, reason: "the user declined: notes are read-only today" };
    });
    const outcome = await s.callTool(
      "enable_tools",
      { names: ["notes__add_note"] },
      { callId: "c1" },
    );
    expect(outcome.ok && outcome.result.isError).toBe(true);
    expect(asked).toEqual([
      { conversationId: s.streamId, callId: "c1", names: ["notes__add_note"] },
    ]);
    expect(s.state.enabled).toEqual([]);
    expect(await enableEvents(s)).toMatchObject([
      { type: "EnableToolsRequested", callId: "c1", names: ["notes__add_note"] },
      {
        type: "EnableToolsResponded",
        callId: "c1",
        ok: false,
        error: { code: "DENIED", message: "the user declined: notes are read-only today" },
      },
    ]);
  });

  it("D5 an approval is validated when it is given, and enables", async () => {
    const s = await session(async () => ({ approve: true }));
    const outcome = await s.callTool(
      "enable_tools",
      { names: ["notes__add_note"] },
      { callId: "c1" },
    );
    expect(outcome.ok && outcome.result.isError).toBeFalsy();
    expect(s.state.enabled).toEqual(["notes__add_note"]);
    expect(s.modelView().tools.map((t) => t.name)).toContain("notes__add_note");
  });

  it("D5 a hook that throws denies, with its error as the reason", async () => {
    const s = await session(() => {
      throw new Error("permission service unreachable");
    });
    await s.callTool("enable_tools", { names: ["notes__add_note"] }, { callId: "c1" });
    expect((await enableEvents(s)).at(-1)).toMatchObject({
      ok: false,
      error: { code: "DENIED", message: expect.stringContaining("permission service unreachable") },
    });
  });

  it("D5 the two-step API: the request waits; approving after the tool left the registry fails the request", async () => {
    const s = await session();
    await s.requestEnableTools("c1", ["notes__add_note"]);
    expect(s.state.pending).toEqual([{ callId: "c1", names: ["notes__add_note"] }]);
    expect(s.state.enabled).toEqual([]);
    await s.removeExtension("notes");
    const outcome = await s.approveEnableTools("c1");
    expect(outcome).toMatchObject({ ok: false, error: { code: "INVALID_TOOL_NAMES" } });
    expect(s.state.pending).toEqual([]);
    await expect(s.approveEnableTools("c1")).rejects.toMatchObject({ code: "COMMAND_REJECTED" });
  });
});
