import { describe, expect, expectTypeOf, it } from "vitest";
import {
  openSession,
  openStandaloneConversation,
  type SessionEvent,
  type SessionOptions,
  StandaloneConversation,
  type StandaloneConversationOptions,
  type StreamEvent,
  ToolledgerSession,
} from "./index.js";

// Issue 35 (one word per thing): the 0.2 names of a conversation with a host of its own and of
// a stream's event stay exported, deprecated, for 0.3.x (CHANGELOG 0.3.0).
describe("issue 35: the 0.2 names are aliases of the new ones", () => {
  it("ToolledgerSession and openSession are StandaloneConversation and openStandaloneConversation", () => {
    expect(ToolledgerSession).toBe(StandaloneConversation);
    expect(openSession).toBe(openStandaloneConversation);
    expectTypeOf<ToolledgerSession>().toEqualTypeOf<StandaloneConversation>();
  });

  it("SessionOptions and SessionEvent are StandaloneConversationOptions and StreamEvent", () => {
    expectTypeOf<SessionOptions>().toEqualTypeOf<StandaloneConversationOptions>();
    expectTypeOf<SessionEvent>().toEqualTypeOf<StreamEvent>();
  });
});
