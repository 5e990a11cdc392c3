import { describe, expect, it } from "vitest";
import { whatAwaitingMeans } from "./awaitingApproval.js";

describe("what awaiting approval means, in words (P2, issue 34)", () => {
  it("a changed definition is served as approved and only its use refused; a new one is not served", () => {
    const tool = (status: string) => ({ kind: "tool", status });
    expect(whatAwaitingMeans([tool("changed")])).toBe(
      "its approved definition is still served; only calls to it are refused until you approve",
    );
    expect(whatAwaitingMeans([tool("changed"), tool("changed")])).toBe(
      "their approved definitions are still served; only calls to them are refused until you approve",
    );
    expect(whatAwaitingMeans([{ kind: "prompt", status: "changed" }])).toBe(
      "its approved definition is still served; only using it is refused until you approve",
    );
    expect(whatAwaitingMeans([tool("pending")])).toBe("it is not served until you approve");
    expect(whatAwaitingMeans([tool("pending"), tool("pending")])).toBe(
      "they are not served until you approve",
    );
    expect(whatAwaitingMeans([tool("changed"), tool("pending")])).toBe(
      "the changed one is still served as approved (only calls to it are refused), the new one is not served, until you approve",
    );
  });
});
