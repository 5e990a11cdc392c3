import { describe, expect, it } from "vitest";
import { redactCommand } from "./redactCommand.js";
import { Redactor } from "./redactor.js";

describe("redactCommand (R6)", () => {
  const r = Redactor.forValues(["notes-secret-1", "github"]);

  it("never rewrites what the host named itself: an env value equal to a server's name leaves it alone", () => {
    const add = {
      type: "AddExtension" as const,
      name: "github",
      kind: "stdio",
      availableTools: ["github"],
      configFingerprint: "sha256:github",
    };
    expect(redactCommand(add, r)).toBe(add);
    const failure = {
      type: "RecordFetchFailure" as const,
      extension: "github",
      startedAtVersion: 3,
      error: "401: token notes-secret-1 refused by github",
    };
    expect(redactCommand(failure, r)).toEqual({
      ...failure,
      error: "401: token [redacted] refused by [redacted]",
    });
  });

  it("rewrites server text and the model's: tool lists, payloads, a called name", () => {
    const fetch = {
      type: "RecordFetch" as const,
      extension: "x",
      startedAtVersion: 1,
      tools: [{ name: "t", description: "uses notes-secret-1" }],
    };
    expect(redactCommand(fetch, r)).toMatchObject({
      extension: "x",
      tools: [{ name: "t", description: "uses [redacted]" }],
    });
    const call = { type: "StartCall" as const, callId: "c", name: "notes-secret-1" };
    expect(redactCommand(call, r)).toEqual({ ...call, name: "[redacted]" });
    expect(redactCommand(call, Redactor.none)).toBe(call);
  });
});
