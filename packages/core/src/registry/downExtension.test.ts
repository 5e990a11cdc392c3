import { describe, expect, it } from "vitest";
import { checkCall } from "../calls/checkCall.js";
import { decide } from "../decide/decide.js";
import { host } from "../fold/fixtures.test-helpers.js";

/** Two extensions with tools, then `crashy` lost (as hosts record a crash: a failed fetch). */
function crashed() {
  const h = host();
  h.add("crashy");
  h.add("crushy");
  h.add("a__b");
  h.add("_internal");
  h.fetch("crashy", ["ok", "slow"]);
  h.fetch("crushy", ["ok"]);
  h.fetch("a__b", ["c"]);
  h.fetch("_internal", ["x"]);
  for (const extension of ["crashy", "a__b", "_internal"]) {
    h.run({
      type: "RecordFetchFailure",
      extension,
      startedAtVersion: h.state.version,
      error: `extension "${extension}" is unavailable: the server closed the connection (exited with code 3)`,
    });
  }
  return h;
}

describe("calls to a down extension's tools (issue 10, R5, R13)", () => {
  it("say the extension is unavailable and why, by public name and mangled forms, with no close names", () => {
    const h = crashed();
    for (const name of [
      "crashy__ok",
      "crashy__gone",
      "functions.crashy__ok",
      "crashy.ok",
      " crashy.slow ",
    ]) {
      const check = checkCall(h.state, name);
      expect(check, name).toMatchObject({
        ok: false,
        error: {
          code: "EXTENSION_UNAVAILABLE",
          suggestions: [],
          message: `tool ${name} cannot be called: extension "crashy" is unavailable: the server closed the connection (exited with code 3)`,
        },
      });
    }
  });

  it("reads the owner before any `__` (keys may hold `__`, R10)", () => {
    expect(checkCall(crashed().state, "a__b__c")).toMatchObject({
      ok: false,
      error: { code: "EXTENSION_UNAVAILABLE", message: expect.stringContaining('"a__b"') },
    });
  });

  it("keeps a hidden extension hidden (R8): unknown unless includeHidden", () => {
    const h = crashed();
    expect(checkCall(h.state, "_internal__x")).toMatchObject({ error: { code: "UNKNOWN_TOOL" } });
    expect(checkCall(h.state, "_internal__x", { includeHidden: true })).toMatchObject({
      error: { code: "EXTENSION_UNAVAILABLE" },
    });
  });

  it("leaves names of live extensions and unknown prefixes alone; a refetch brings the tools back", () => {
    const h = crashed();
    expect(checkCall(h.state, "crushy__ok")).toMatchObject({ ok: true, extension: "crushy" });
    expect(checkCall(h.state, "nobody__ok")).toMatchObject({ error: { code: "UNKNOWN_TOOL" } });
    h.fetch("crashy", ["ok"]);
    expect(checkCall(h.state, "crashy__ok")).toMatchObject({ ok: true, extension: "crashy" });
  });

  it("C4: such a call is recorded as unavailable (EXTENSION_UNAVAILABLE), not as an unknown tool", () => {
    const decision = decide(crashed().state, {
      type: "StartCall",
      callId: "c1",
      name: "crashy__ok",
    });
    expect(decision.ok && decision.events[1]).toMatchObject({
      type: "ToolCallFinished",
      outcome: "unavailable",
      reason: "EXTENSION_UNAVAILABLE",
      error: expect.stringContaining("exited with code 3"),
    });
  });
});

describe("calls to a tool of an extension that has not started (issue 34.5)", () => {
  it("say it has not started, recorded as unavailable, not as an unknown tool", () => {
    const h = host();
    h.add("hang");
    h.add("notes");
    h.fetch("notes", ["add_note"]);
    expect(checkCall(h.state, "hang__x")).toMatchObject({
      ok: false,
      error: {
        code: "EXTENSION_UNAVAILABLE",
        suggestions: [],
        message:
          'tool hang__x cannot be called: extension "hang" has not started (none of its tools has been listed yet)',
      },
    });
    const decision = decide(h.state, { type: "StartCall", callId: "c1", name: "hang.x" });
    expect(decision.ok && decision.events[1]).toMatchObject({
      type: "ToolCallFinished",
      outcome: "unavailable",
      reason: "EXTENSION_UNAVAILABLE",
    });
    // Once it is listed, its tools resolve.
    h.fetch("hang", ["x"]);
    expect(checkCall(h.state, "hang__x")).toMatchObject({ ok: true, extension: "hang" });
  });
});
