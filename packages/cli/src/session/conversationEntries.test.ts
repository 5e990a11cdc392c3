import type { ToolledgerEvent } from "@toolledger/core";
import { describe, expect, test } from "vitest";
import { orderConversationEntries } from "./conversationEntries.js";
import type { LogEntry } from "./logEntry.js";

const started: ToolledgerEvent = {
  type: "ConversationStarted",
  v: 1,
  registryStream: "host",
  client: null,
  protocolVersion: null,
  transport: null,
  hostname: null,
};
const entry = (
  streamId: string,
  streamPosition: number,
  globalPosition: number,
  event: ToolledgerEvent,
): LogEntry => ({ position: 0, event, streamId, streamPosition, globalPosition });

describe("orderConversationEntries (C1)", () => {
  test("lines grouped by stream come back in the conversation's fold order, numbered as the store's", () => {
    const lines = [
      entry("host", 1, 1, {
        type: "ExtensionAdded",
        v: 1,
        name: "notes",
        kind: "stdio",
        exposeUnprefixed: false,
        hidden: false,
        availableTools: [],
        configFingerprint: "f",
      }),
      entry("host", 2, 3, { type: "ToolsInvalidated", v: 1 }),
      entry("host", 3, 5, { type: "ToolsInvalidated", v: 1 }),
      entry("conv", 1, 2, started),
      entry("conv", 2, 4, { type: "Cleared", v: 1 }),
    ];
    const ordered = orderConversationEntries(lines, "conv");
    expect(ordered.map((e) => [e.streamId, e.streamPosition, e.position, e.label])).toEqual([
      ["host", 1, 0, "h1"],
      ["conv", 1, 1, undefined],
      ["host", 2, 1, "h2"],
      ["conv", 2, 2, undefined],
      ["host", 3, 2, "h3"],
    ]);
  });
});
