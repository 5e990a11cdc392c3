import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeEvent } from "../events/decodeEvent.js";
import type { ToolledgerEvent } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { replay } from "../fold/replay.js";
import { initialState, type State } from "../fold/state.js";
import { toolDigest } from "../pinning/pinnedDefinition.js";
import { COMMAND_TYPES, type Command, type CommandType } from "./command.js";
import { decide } from "./decide.js";

// E6: `decide` is a boundary. Commands are anything a JavaScript host might pass: arbitrary
// JSON, and near-valid commands whose fields are sometimes right and sometimes any JSON, so
// the accepted paths run as often as the refusals. States are what those commands build.

const EXTENSIONS = ["github", "GitHub", "_sys", "a__b", "__proto__", "   "];
const NAMES = ["github__create_issue", "create_issue", "a__b__c", "shell", "enable_tools", ""];

const anyJson = fc.jsonValue({ maxDepth: 3 });
/** The right kind of value most of the time, any JSON otherwise. */
const or = <T>(good: fc.Arbitrary<T>, weight = 20): fc.Arbitrary<unknown> =>
  fc.oneof({ weight, arbitrary: good }, { weight: 1, arbitrary: anyJson });

const toolLike = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record(
      {
        name: or(fc.constantFrom(...NAMES), 20),
        inputSchema: or(
          fc.oneof(
            fc.constant({ type: "object" }),
            fc.constant({}),
            fc.constant({ properties: {} }),
            fc.record({
              type: fc.constant("object"),
              properties: fc.dictionary(fc.string(), anyJson),
            }),
          ),
        ),
        description: or(fc.string(), 20),
        annotations: or(fc.oneof(fc.constant({ readOnlyHint: true }), fc.constant("yes"))),
        _meta: or(fc.dictionary(fc.string(), anyJson), 20),
      },
      { requiredKeys: ["name"] },
    ),
  },
  { weight: 1, arbitrary: anyJson },
);

const fields: Record<string, fc.Arbitrary<unknown>> = {
  at: or(fc.constant("2026-01-01T00:00:00.000Z")),
  name: or(fc.constantFrom(...EXTENSIONS)),
  kind: or(fc.constantFrom("stdio", "platform", "", "custom")),
  exposeUnprefixed: or(fc.boolean()),
  hidden: or(fc.boolean()),
  availableTools: or(fc.array(fc.constantFrom(...NAMES), { maxLength: 3 })),
  configFingerprint: or(fc.constantFrom("fp1", "fp2")),
  extension: or(fc.constantFrom(...EXTENSIONS)),
  startedAtVersion: or(fc.oneof(fc.nat(6), fc.integer({ min: -2, max: -1 }), fc.double())),
  tools: or(fc.array(toolLike, { maxLength: 4 })),
  complete: or(fc.boolean()),
  reason: or(fc.string()),
  error: or(fc.string()),
  mode: or(fc.constantFrom("off", "lookup", "search", "")),
  alwaysLoad: or(fc.array(fc.constantFrom(...NAMES), { maxLength: 3 })),
  callId: or(fc.constantFrom("c1", "c2", "c3", "")),
  names: or(fc.array(fc.constantFrom(...NAMES), { maxLength: 3 })),
  hostname: or(fc.constantFrom("box", "")),
  pid: or(fc.oneof(fc.nat(), fc.constant(-1))),
  toolledgerVersion: or(fc.constant("0.1.0")),
  registryStream: or(fc.constantFrom("host-1", "")),
  client: or(fc.oneof(fc.constant(null), fc.record({ name: fc.string(), version: fc.string() }))),
  protocolVersion: or(fc.constantFrom("2025-06-18", null)),
  transport: or(fc.constantFrom("stdio", null)),
  arguments: or(anyJson),
  includeHidden: or(fc.boolean()),
  outcome: or(
    fc.constantFrom(
      "ok",
      "tool_error",
      "refused",
      "timeout",
      "cancelled",
      "unavailable",
      "unknown",
    ),
  ),
  durationMs: or(fc.oneof(fc.nat(), fc.double({ min: 0, max: 1e6, noNaN: true }))),
  result: or(anyJson),
  prompts: or(
    fc.array(fc.record({ name: or(fc.string()), description: or(fc.string()) }), { maxLength: 3 }),
  ),
  resources: or(
    fc.array(fc.record({ uri: or(fc.string()), name: or(fc.string()) }), { maxLength: 3 }),
  ),
  resourceTemplates: or(fc.array(fc.record({ uriTemplate: or(fc.string()) }), { maxLength: 2 })),
  lastSeen: or(fc.constantFrom("2026-12-03T09:00:00.000Z", "")),
  gone: or(fc.constantFrom("its lease lapsed", "")),
};
const FIELD_COUNT = Object.keys(fields).length;

const nearValid: fc.Arbitrary<unknown> = fc
  .record({
    type: fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...COMMAND_TYPES) },
      // Commands that need an earlier one (an extension, a pending request) come more often.
      {
        weight: 8,
        arbitrary: fc.constantFrom(
          "AddExtension",
          "RecordFetch",
          "RecordFetchFailure",
          "RequestEnableTools",
          "ApproveEnableTools",
          "DenyEnableTools",
        ),
      },
      { weight: 1, arbitrary: anyJson },
    ),
    values: fc.record(fields),
    keep: fc.array(fc.nat(9), { minLength: FIELD_COUNT, maxLength: FIELD_COUNT }),
  })
  .map(({ type, values, keep }) => {
    const command: Record<string, unknown> = { type };
    // Nine in ten fields are kept: a missing one is a refusal worth testing too.
    Object.entries(values).forEach(([k, value], i) => {
      if (keep[i] !== 0) command[k] = value;
    });
    return pruneFor(command);
  });

/** Keeps only the fields the command type has, most of the time (so valid commands occur). */
function pruneFor(command: Record<string, unknown>): Record<string, unknown> {
  const allowed: Record<string, string[]> = {
    AddExtension: [
      "name",
      "kind",
      "exposeUnprefixed",
      "hidden",
      "availableTools",
      "configFingerprint",
    ],
    RemoveExtension: ["extension"],
    InvalidateTools: ["extension"],
    RecordFetch: ["extension", "startedAtVersion", "tools", "complete", "reason"],
    RecordFetchFailure: ["extension", "startedAtVersion", "error"],
    ConfigureDeferral: ["mode", "alwaysLoad"],
    EnableTools: ["callId", "names"],
    RequestEnableTools: ["callId", "names"],
    ApproveEnableTools: ["callId"],
    DenyEnableTools: ["callId", "reason"],
    Compact: [],
    Clear: [],
    StartHost: ["hostname", "pid", "toolledgerVersion"],
    StartConversation: ["registryStream", "client", "protocolVersion", "transport", "hostname"],
    ResumeConversation: ["registryStream", "client", "protocolVersion", "transport", "hostname"],
    CloseConversation: ["reason"],
    EndLostConversation: ["lastSeen", "gone"],
    StartCall: ["callId", "name", "arguments", "includeHidden"],
    FinishCall: ["callId", "outcome", "durationMs", "reason", "error", "result"],
    InvalidatePrompts: ["extension"],
    InvalidateResources: ["extension"],
    RecordPrompts: ["extension", "startedAtVersion", "prompts", "error"],
    RecordResources: ["extension", "startedAtVersion", "resources", "resourceTemplates", "error"],
    SetPinPolicy: ["extension", "policy"],
    PinDefinitions: [
      "extension",
      "policy",
      "list",
      "tools",
      "prompts",
      "resources",
      "instructions",
    ],
    ApproveDefinitions: ["extension", "items", "by"],
    RejectDefinitions: ["extension", "items", "by", "reason"],
  };
  // Own keys only: an arbitrary type such as "constructor" names no command.
  const keys =
    typeof command.type === "string" && Object.hasOwn(allowed, command.type)
      ? allowed[command.type]
      : undefined;
  if (!keys) return command;
  const out: Record<string, unknown> = { type: command.type };
  for (const k of [...keys, "at"]) if (k in command) out[k] = command[k];
  // Hosts pass the version they fetched at: a valid version here stands for that one.
  if (Number.isInteger(out.startedAtVersion) && (out.startedAtVersion as number) >= 0)
    out.startedAtVersion = "current";
  return out;
}

const command = fc.oneof({ weight: 1, arbitrary: anyJson }, { weight: 6, arbitrary: nearValid });

/** Decodes an event as a store reading it back would: from its JSON text. */
function reload(event: ToolledgerEvent): ToolledgerEvent {
  const decoded = decodeEvent(JSON.parse(JSON.stringify(event)));
  if (!decoded.ok) throw new Error(`${event.type} does not reload: ${decoded.error.message}`);
  return decoded.event;
}

describe("E6 decide is total over arbitrary input", () => {
  it("E6 never throws, refuses with a typed error, and everything it emits decodes and folds to the same state", () => {
    const acceptedTypes = new Set<string>();
    const refusals = new Set<string>();
    fc.assert(
      fc.property(
        fc.array(command, { minLength: 4, maxLength: 30 }),
        fc.nat(6),
        (commands, lag) => {
          let state: State = initialState();
          for (const raw of commands) {
            const input =
              typeof raw === "object" &&
              raw !== null &&
              (raw as { startedAtVersion?: unknown }).startedAtVersion === "current"
                ? { ...raw, startedAtVersion: Math.max(0, state.version - (lag % 3 === 0 ? 1 : 0)) }
                : raw;
            const decision = decide(state, input as Command);
            if (!decision.ok) {
              expect(decision.error.code).toMatch(/^[A-Z_]+$/);
              expect(decision.error.message.length).toBeGreaterThan(10);
              refusals.add(decision.error.code);
              continue;
            }
            if (decision.events.length > 0) acceptedTypes.add((input as Command).type);
            const reloaded = decision.events.map(reload);
            const folded = replay(decision.events, state);
            expect(replay(reloaded, state)).toEqual(folded);
            state = folded;
          }
          // The log the decider wrote reloads as a whole, too.
          expect(JSON.parse(JSON.stringify(state))).toEqual(state);
        },
      ),
      { numRuns: 300 },
    );
    // The generator reaches the accepted paths of many commands (a run varies; every one is
    // checked by the scripted test below) and the main refusals.
    expect(acceptedTypes.size).toBeGreaterThanOrEqual(Math.floor(COMMAND_TYPES.length / 3));
    for (const code of [
      "INVALID_COMMAND",
      "UNKNOWN_COMMAND",
      "UNKNOWN_DEFERRAL_MODE",
      "UNKNOWN_EXTENSION",
    ])
      expect(refusals).toContain(code);
  });

  it("E6 an accepted command's events decode to themselves (nothing the log would change)", () => {
    fc.assert(
      fc.property(fc.array(nearValid, { maxLength: 20 }), (commands) => {
        let state = initialState();
        for (const raw of commands) {
          const input =
            (raw as { startedAtVersion?: unknown }).startedAtVersion === "current"
              ? { ...(raw as object), startedAtVersion: state.version }
              : raw;
          const decision = decide(state, input as Command);
          if (!decision.ok) continue;
          for (const event of decision.events) {
            expect(reload(event)).toEqual(event);
            state = evolve(state, event);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("E6 a -0 in a recorded payload or a tool schema is recorded as the 0 the log reloads", () => {
    // Found by the property above (seed -2123295344): JSON has no negative zero.
    const finish = decide(initialState(), {
      type: "FinishCall",
      callId: "c1",
      outcome: "ok",
      durationMs: 0,
      result: [-0, { x: -0 }],
    });
    expect(finish.ok && finish.events[0]).toMatchObject({ type: "ToolCallFinished" });
    for (const event of finish.ok ? finish.events : []) expect(reload(event)).toEqual(event);
    const added = decide(initialState(), {
      type: "AddExtension",
      name: "calc",
      kind: "stdio",
      configFingerprint: "f",
    });
    const state = added.ok ? replay(added.events) : initialState();
    const fetched = decide(state, {
      type: "RecordFetch",
      extension: "calc",
      startedAtVersion: state.version,
      tools: [{ name: "neg", inputSchema: { type: "object", properties: { x: { minimum: -0 } } } }],
    });
    expect(fetched.ok).toBe(true);
    for (const event of fetched.ok ? fetched.events : []) expect(reload(event)).toEqual(event);
  });

  it("E6 every command type's accepted path emits events that reload as they were folded", () => {
    const v = { at: "2026-01-01T00:00:00.000Z" };
    const issue = { name: "create_issue", inputSchema: { type: "object" } };
    const changedIssue = { ...issue, description: "Create an issue." };
    const script: Record<CommandType, Command[]> = {
      StartHost: [{ type: "StartHost", hostname: "box", pid: 1, toolledgerVersion: "0.1.0", ...v }],
      StartConversation: [
        { type: "StartConversation", registryStream: "host-1", transport: "stdio" },
      ],
      ResumeConversation: [{ type: "ResumeConversation", registryStream: "host-1" }],
      AddExtension: [
        { type: "AddExtension", name: "GitHub", kind: "stdio", configFingerprint: "f" },
      ],
      RecordFetch: [
        {
          type: "RecordFetch",
          extension: "github",
          startedAtVersion: 1,
          tools: [
            { name: "create_issue", inputSchema: { type: "object" } },
            { name: "a.very.long.name.".repeat(5), inputSchema: { type: "object" } },
          ],
          complete: false,
          reason: "page 2 timed out",
          outerPrefixBudget: 17,
        },
      ],
      RecordFetchFailure: [],
      InvalidateTools: [
        { type: "InvalidateTools" },
        { type: "InvalidateTools", extension: "GitHub" },
      ],
      ConfigureDeferral: [
        { type: "ConfigureDeferral", mode: "lookup", alwaysLoad: ["x"] },
        { type: "ConfigureDeferral", mode: "auto", alwaysLoad: [], budget: 10 },
      ],
      SearchTools: [
        { type: "SearchTools", callId: "q1", query: "create an issue", limit: 3 },
        { type: "SearchTools", callId: "q2", query: "/(/" },
      ],
      EnableTools: [{ type: "EnableTools", callId: "c1", names: ["github__create_issue"] }],
      RequestEnableTools: [
        { type: "RequestEnableTools", callId: "c2", names: ["github__create_issue"] },
        { type: "RequestEnableTools", callId: "c3", names: ["nope"] },
      ],
      ApproveEnableTools: [{ type: "ApproveEnableTools", callId: "c2" }],
      DenyEnableTools: [{ type: "DenyEnableTools", callId: "c3", reason: "the user said no" }],
      StartCall: [
        { type: "StartCall", callId: "k1", name: "github__create_issue", arguments: { a: [1] } },
        { type: "StartCall", callId: "k2", name: "github__create_issue" },
      ],
      FinishCall: [
        { type: "FinishCall", callId: "k1", outcome: "ok", durationMs: 3.5, result: { ok: true } },
      ],
      CreateTask: [
        { type: "CreateTask", callId: "k2", taskId: "t1", runner: "server", upstreamTaskId: "u1" },
      ],
      ChangeTaskStatus: [
        { type: "ChangeTaskStatus", taskId: "t1", status: "input_required", message: "which?" },
        { type: "ChangeTaskStatus", taskId: "t1", status: "completed", result: { n: -0 } },
      ],
      Compact: [{ type: "Compact" }],
      Clear: [{ type: "Clear" }],
      // L3: between the start and the resume below (a lost conversation is resumed).
      EndLostConversation: [
        {
          type: "EndLostConversation",
          lastSeen: "2026-01-01T00:00:00.000Z",
          gone: "the lease of gateway host-1 lapsed",
        },
      ],
      CloseConversation: [{ type: "CloseConversation", reason: "client went away" }],
      RemoveExtension: [{ type: "RemoveExtension", extension: "github" }],
      InvalidatePrompts: [{ type: "InvalidatePrompts", extension: "github" }],
      InvalidateResources: [{ type: "InvalidateResources", extension: "github" }],
      RecordPrompts: [
        {
          type: "RecordPrompts",
          extension: "github",
          startedAtVersion: 1,
          prompts: [{ name: "review", arguments: [{ name: "pr" }] }],
        },
      ],
      RecordResources: [
        {
          type: "RecordResources",
          extension: "github",
          startedAtVersion: 1,
          resources: [{ uri: "file:///a", name: "a" }],
          resourceTemplates: [{ uriTemplate: "file:///{path}" }],
        },
      ],
      SetPinPolicy: [{ type: "SetPinPolicy", extension: "github", policy: "quarantine" }],
      PinDefinitions: [
        {
          type: "PinDefinitions",
          extension: "github",
          policy: "quarantine",
          list: "tools",
          tools: [issue],
        },
        {
          type: "PinDefinitions",
          extension: "github",
          policy: "quarantine",
          list: "tools",
          tools: [changedIssue],
        },
        {
          type: "PinDefinitions",
          extension: "github",
          policy: "quarantine",
          list: "instructions",
          instructions: "Use with care.",
        },
      ],
      ApproveDefinitions: [
        {
          type: "ApproveDefinitions",
          extension: "github",
          by: "ana@laptop",
          items: [{ kind: "tool", name: "create_issue", digest: toolDigest(changedIssue) }],
        },
      ],
      CarryPins: [
        {
          type: "CarryPins",
          extension: "github",
          ledgerVersion: 7,
          baselines: ["tools"],
          baselineAt: { tools: v.at },
          records: [
            {
              kind: "tool",
              name: "search_code",
              approved: null,
              awaiting: {
                kind: "tool",
                name: "search_code",
                digest: `sha256:${"b".repeat(64)}`,
                definition: { name: "search_code" },
                status: "pending",
                previous: null,
                changes: [],
                findings: [],
                renamedFrom: null,
                at: null,
              },
              rejected: [],
            },
          ],
          unsettled: 1,
        },
      ],
      RejectDefinitions: [
        {
          type: "RejectDefinitions",
          extension: "github",
          by: "ana@laptop",
          reason: "not ours",
          items: [{ kind: "tool", name: "search_code", digest: `sha256:${"b".repeat(64)}` }],
        },
      ],
      MirrorPins: [
        {
          type: "MirrorPins",
          events: [
            {
              type: "DefinitionsRestored",
              v: 1,
              extension: "github",
              list: "tools",
              items: [{ kind: "tool", name: "create_issue", digest: toolDigest(changedIssue) }],
            },
          ],
        },
      ],
      RequireAuthorization: [
        { type: "RequireAuthorization", extension: "github", reason: "no_token" },
        {
          type: "RequireAuthorization",
          extension: "github",
          issuer: "https://auth.example",
          scopes: ["repo"],
          reason: "insufficient_scope",
          prompt: "browser",
        },
      ],
      RecordAuthorization: [
        {
          type: "RecordAuthorization",
          extension: "github",
          issuer: "https://auth.example",
          scopes: ["repo"],
          expiresAt: "2026-01-01T00:00:00.000Z",
          grant: "authorization_code",
          client: "dynamic",
        },
      ],
      RecordTokenRefresh: [
        { type: "RecordTokenRefresh", extension: "github", issuer: "https://auth.example" },
      ],
      RecordAuthorizationFailure: [
        { type: "RecordAuthorizationFailure", extension: "github", error: "invalid_grant" },
      ],
      RecordEra: [
        {
          type: "RecordEra",
          extension: "github",
          era: "modern",
          protocolVersion: "2026-07-28",
          supportedVersions: ["2026-07-28", "2025-11-25"],
          how: "discover",
        },
      ],
    };
    script.RecordFetchFailure.push({
      type: "RecordFetchFailure",
      extension: "github",
      startedAtVersion: 3,
      error: "crashed",
    });
    const order: CommandType[] = [
      "StartHost",
      "StartConversation",
      "EndLostConversation",
      "ResumeConversation",
      "AddExtension",
      "RecordFetch",
      "ConfigureDeferral",
      "SearchTools",
      "EnableTools",
      "RequestEnableTools",
      "ApproveEnableTools",
      "DenyEnableTools",
      "StartCall",
      "FinishCall",
      "CreateTask",
      "ChangeTaskStatus",
      "InvalidateTools",
      "RecordFetchFailure",
      "Compact",
      "Clear",
      "InvalidatePrompts",
      "RecordPrompts",
      "InvalidateResources",
      "RecordResources",
      "SetPinPolicy",
      "PinDefinitions",
      "ApproveDefinitions",
      "CarryPins",
      "RejectDefinitions",
      "MirrorPins",
      "RequireAuthorization",
      "RecordAuthorization",
      "RecordTokenRefresh",
      "RecordAuthorizationFailure",
      "RecordEra",
      "RemoveExtension",
      "CloseConversation",
    ];
    // A new command type must be added here (and so be checked).
    expect([...order].sort()).toEqual([...COMMAND_TYPES].sort());
    let state = initialState();
    for (const type of order) {
      for (const command of script[type]) {
        const decision = decide(state, command);
        if (!decision.ok) throw new Error(`${type} refused: ${decision.error.message}`);
        expect(decision.events.length).toBeGreaterThan(0);
        for (const event of decision.events) {
          expect(reload(event)).toEqual(event);
          state = evolve(state, event);
        }
      }
    }
  });
});
