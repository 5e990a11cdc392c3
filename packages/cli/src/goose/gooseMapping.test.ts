import { describe, expect, it } from "vitest";
import { parseSince, pick } from "../commands/importGoose.js";
import { readBlock } from "./gooseContent.js";
import { gooseDatabasePath } from "./gooseDatabasePath.js";
import { enableMatcher, isEnableRequest, loadedNames, requestedNames } from "./gooseDeferral.js";
import { enabledExtensions } from "./gooseExtensions.js";
import { gooseInitialExtensions } from "./gooseInitialExtensions.js";
import { DECLINED_RESPONSE, mapOutcome } from "./gooseOutcome.js";
import { EMPTY_TOKENS, type GooseSession, parentOf } from "./gooseSession.js";
import { splitToolName } from "./gooseToolName.js";
import type { GooseCall } from "./scanGooseSession.js";

const ok = { ok: true as const, name: "a__b", arguments: {}, meta: null };
const success = (text: string, isError = false) => ({
  ok: true as const,
  isError,
  text,
  structured: false,
});
const failure = (error: string) => ({ ok: false as const, error });

describe("goose mapping points (issue 26)", () => {
  it("owner and tool: the first `__` (R5), or the owner in _meta.goose_extension", () => {
    expect(splitToolName("github__create__issue", null)).toEqual({
      owner: "github",
      tool: "create__issue",
    });
    expect(splitToolName("shell", null)).toEqual({ owner: null, tool: "shell" });
    expect(splitToolName("shell", { goose_extension: "Developer" })).toEqual({
      owner: "developer",
      tool: "shell",
    });
    expect(splitToolName("my_ext__run", { goose_extension: "My Ext" })).toEqual({
      owner: "myext",
      tool: "my_ext__run",
    });
  });

  it("outcomes: success, isError, declined, chat mode, dispatch errors by kind, the model's malformed call", () => {
    expect(mapOutcome(ok, success("fine"))).toEqual({ outcome: "ok", reason: null, error: null });
    expect(mapOutcome(ok, success("boom", true))).toMatchObject({
      outcome: "tool_error",
      error: "boom",
    });
    expect(mapOutcome(ok, success(DECLINED_RESPONSE))).toMatchObject({
      outcome: "refused",
      reason: "DECLINED_BY_USER",
    });
    expect(
      mapOutcome(ok, success("Let the user know the tool call was skipped in goose chat mode. …")),
    ).toMatchObject({ reason: "SKIPPED_IN_CHAT_MODE" });
    expect(mapOutcome(ok, failure("-32602: Tool 'x' not found"))).toMatchObject({
      outcome: "refused",
      reason: "UNKNOWN_TOOL",
    });
    expect(mapOutcome(ok, failure("-32603: Transport closed"))).toMatchObject({
      outcome: "unavailable",
    });
    expect(mapOutcome(ok, failure("-32603: request cancelled"))).toMatchObject({
      outcome: "cancelled",
    });
    expect(mapOutcome(ok, failure("-32603: timed out after 300s"))).toMatchObject({
      outcome: "timeout",
    });
    expect(mapOutcome(ok, failure("-32603: boom"))).toMatchObject({
      outcome: "tool_error",
      reason: "DISPATCH_ERROR",
    });
    expect(
      mapOutcome({ ok: false, error: "-32602: Could not interpret" }, success("x")),
    ).toMatchObject({ outcome: "refused", reason: "MALFORMED_CALL" });
  });

  it("content blocks: mapped, known and passed over, or skipped and counted (unknown, legacy)", () => {
    expect(
      readBlock({
        type: "toolRequest",
        id: "1",
        toolCall: { status: "success", value: { name: "a__b", arguments: {} } },
      }),
    ).toMatchObject({ kind: "toolRequest", frontend: false });
    expect(
      readBlock({
        type: "frontendToolRequest",
        id: "1",
        toolCall: { status: "success", value: { name: "f" } },
      }),
    ).toMatchObject({ kind: "toolRequest", frontend: true });
    expect(
      readBlock({
        type: "toolResponse",
        id: "1",
        toolResult: { status: "success", value: [{ type: "text", text: "legacy" }] },
      }),
    ).toMatchObject({ result: { ok: true, text: "legacy" } });
    expect(readBlock({ type: "thinking", thinking: "", signature: "" })).toEqual({
      kind: "other",
      type: "thinking",
    });
    expect(readBlock({ type: "summarizationRequested", msg: "" })).toEqual({
      kind: "skipped",
      type: "summarizationRequested",
      legacy: true,
    });
    expect(readBlock({ type: "holographicContent" })).toEqual({
      kind: "skipped",
      type: "holographicContent",
      legacy: false,
    });
  });

  it("deferred loading: load_tools and enable_tools (also prefixed) match; names from arguments or goose's answer; more names configurable", () => {
    const m = enableMatcher(["my__loader"]);
    expect(
      ["extensionmanager__load_tools", "enable_tools", "gateway__enable_tools", "my__loader"].map(
        (n) => isEnableRequest(m, n),
      ),
    ).toEqual([true, true, true, true]);
    expect(isEnableRequest(enableMatcher(), "my__loader")).toBe(false);
    expect(requestedNames({ names: [" a__b ", 3, ""], query: "q" })).toEqual({
      names: ["a__b"],
      query: "q",
    });
    expect(loadedNames("## a__b\nx\n\n## c__d\nParameters")).toEqual(["a__b", "c__d"]);
  });

  it("extensions from the enabled-extensions state; secrets only hashed (R6)", () => {
    const exts = enabledExtensions({
      "enabled_extensions.v0": {
        extensions: [
          {
            type: "stdio",
            name: "GitHub",
            envs: { TOKEN: "s3cret-value" },
            available_tools: ["x"],
          },
          { type: "builtin" },
        ],
      },
    });
    expect(exts).toHaveLength(1);
    expect(exts[0]).toMatchObject({
      key: "github",
      name: "GitHub",
      kind: "stdio",
      availableTools: ["x"],
    });
    expect(JSON.stringify(exts)).not.toContain("s3cret-value");
  });

  it("sub-agent parents: parent_session_id, else goose's name for a sub-agent session", () => {
    expect(parentOf({ parentSessionId: "p1", name: "x" })).toEqual({ id: "p1", inferred: false });
    expect(parentOf({ parentSessionId: null, name: "Subagent task for: 20261130_2" })).toEqual({
      id: "20261130_2",
      inferred: true,
    });
    const head = (id: string, parentSessionId: string | null) => ({
      id,
      format: "sqlite" as const,
      path: "",
      schemaVersion: 16,
      name: null,
      workingDir: null,
      sessionType: "user",
      parentSessionId,
      createdAt: null,
      updatedAt: "2026-11-30T00:00:00.000Z",
      extensionData: {},
      tokens: EMPTY_TOKENS,
    });
    expect(
      pick([head("a", null), head("b", "a"), head("c", "b"), head("d", null)], {
        ids: ["a"],
        all: false,
        since: null,
      }).sort(),
    ).toEqual(["a", "b", "c"]);
  });

  it("where goose keeps sessions.db: $GOOSE_PATH_ROOT, else XDG, else the platform's; relative roots ignored as goose does", () => {
    expect(gooseDatabasePath({ GOOSE_PATH_ROOT: "/r" }, "/h", "linux").path).toBe(
      "/r/data/sessions/sessions.db",
    );
    expect(
      gooseDatabasePath({ GOOSE_PATH_ROOT: "rel", XDG_DATA_HOME: "/x" }, "/h", "linux").path,
    ).toBe("/x/goose/sessions/sessions.db");
    expect(gooseDatabasePath({}, "/h", "darwin").path).toBe(
      "/h/.local/share/goose/sessions/sessions.db",
    );
    expect(gooseDatabasePath({ APPDATA: "C:\\A" }, "C:\\h", "win32").path).toContain("Block");
  });

  it("--since: an ISO date/time or a duration back", () => {
    const now = new Date("2026-12-01T00:00:00Z");
    expect(parseSince("7d", now)?.toISOString()).toBe("2026-11-24T00:00:00.000Z");
    expect(parseSince("2026-11-30", now)?.toISOString()).toBe("2026-11-30T00:00:00.000Z");
    expect(() => parseSince("last tuesday", now)).toThrow(/neither an ISO date/);
  });

  it("R3: platform extensions goose serves unprefixed are registered so; the session's own calls decide when they say one way (issue 34)", () => {
    const state = (extensions: unknown[]) => ({ "enabled_extensions.v0": { extensions } });
    const listed = enabledExtensions(
      state([
        { type: "platform", name: "developer" },
        { type: "builtin", name: "Analyze" },
        { type: "stdio", name: "summon", cmd: "x" },
        { type: "platform", name: "todo" },
      ]),
    );
    expect(listed.map((e) => [e.key, e.exposeUnprefixed])).toEqual([
      ["developer", true],
      ["analyze", true],
      // A server of the user's own that happens to share the name: goose prefixes it.
      ["summon", false],
      ["todo", false],
    ]);
    const session = (extensions: unknown[]) =>
      ({ extensionData: state(extensions), messages: [] }) as unknown as GooseSession;
    const called = (name: string, meta: Record<string, unknown> | null) => {
      const split = splitToolName(name, meta);
      return {
        call: { ok: true, name, arguments: {}, meta },
        name,
        owner: split.owner,
        tool: split.tool,
        response: null,
        manage: null,
        enable: false,
      } as unknown as GooseCall;
    };
    const developer = { goose_extension: "developer" };
    const unprefixed = (calls: GooseCall[], extensions: unknown[]) =>
      gooseInitialExtensions(session(extensions), calls).initial.get("developer")?.exposeUnprefixed;
    const builtin = [{ type: "builtin", name: "developer" }];
    // goose before developer became a platform extension: a builtin served `developer__shell`.
    expect(unprefixed([called("developer__shell", null)], builtin)).toBe(false);
    expect(unprefixed([called("shell", developer)], builtin)).toBe(true);
    // Named both ways (a session resumed across an upgrade): goose's rule of today.
    expect(
      unprefixed([called("developer__shell", null), called("shell", developer)], builtin),
    ).toBe(true);
    // Not in the session's state: registered as its calls named it.
    expect(unprefixed([called("shell", developer)], [])).toBe(true);
    expect(
      gooseInitialExtensions(session([]), [called("shell", developer)]).initial.get("developer")
        ?.kind,
    ).toBe("platform");
  });
});
