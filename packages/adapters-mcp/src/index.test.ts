import { describe, expect, it } from "vitest";
import * as adapters from "./index.js";

// Issue 35 kept the 0.2 names (ToolledgerSession, openSession) as deprecated aliases for 0.3.x
// only (CHANGELOG 0.3.0); 0.4.0 removes them, as announced.
describe("0.4.0: the 0.2 names deprecated in 0.3.x are gone", () => {
  it("exports StandaloneConversation and openStandaloneConversation, not ToolledgerSession and openSession", () => {
    expect(typeof adapters.StandaloneConversation).toBe("function");
    expect(typeof adapters.openStandaloneConversation).toBe("function");
    expect("ToolledgerSession" in adapters).toBe(false);
    expect("openSession" in adapters).toBe(false);
  });
});
