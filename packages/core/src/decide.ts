import type { z } from "zod";
import { hget, hhas, hkeys } from "./_hashDict.js";
import { asReloaded, type JsonSeen, jsonProblem } from "./_jsonProblem.js";
import { parseCallCommand } from "./_parseCallCommand.js";
import { assignWireNames, winnerOf, wireWinner } from "./_registry.js";
import { checkCall } from "./checkCall.js";
import { classifyTool } from "./classifyTool.js";
import { closeNames } from "./closeNames.js";
import { COMMAND_TYPES, type Command, CommandSchema } from "./command.js";
import { decideAuthorization } from "./decideAuthorization.js";
import {
  type EnableError,
  EVENT_SCHEMA_VERSION,
  type McpTool,
  type ToolledgerEvent,
} from "./events.js";
import { evolve } from "./evolve.js";
import { listTools } from "./listTools.js";
import { isMcpToolDefinition } from "./mcpToolDefinition.js";
import { ENABLE_TOOLS_NAME } from "./modelView.js";
import { nameToKey } from "./nameToKey.js";
import { DEFERRAL_MODES } from "./parseDeferralConfig.js";
import { resolveTool } from "./resolveTool.js";
import type { ExtensionState, RegisteredTool, State } from "./state.js";
import { fitsWire, MAX_WIRE_NAME_LENGTH } from "./wireName.js";

const v = EVENT_SCHEMA_VERSION;

export type CommandErrorCode =
  | "INVALID_COMMAND"
  | "UNKNOWN_COMMAND"
  | "UNKNOWN_DEFERRAL_MODE"
  | "EMPTY_EXTENSION_KEY"
  | "UNKNOWN_EXTENSION"
  | "DUPLICATE_CALL_ID"
  | "UNKNOWN_CALL_ID"
  | "CONVERSATION_EXISTS"
  | "CONVERSATION_CLOSED";

export interface CommandError {
  code: CommandErrorCode;
  message: string;
  /** The dotted path of the offending field (`tools.3.name`) when a field is at fault. */
  path?: string;
}

export type Decision = { ok: true; events: ToolledgerEvent[] } | { ok: false; error: CommandError };

type Rejection = { ok: false; error: CommandError };
type ParsedCommand = z.output<typeof CommandSchema>;
type At = { at?: string };

/**
 * E4: decisions live here; the reducer only folds what was decided. A failed enable is
 * still a decision: it yields the request and a failed response, so the audit sees it.
 * E6: the command is validated at run time (JavaScript hosts have no types): `decide`
 * never throws, and every event it returns decodes and folds.
 */
export function decide(state: State, input: Command): Decision {
  const parsed = parseCommand(input);
  if (!parsed.ok) return parsed;
  const command = parsed.command;
  const at: At = command.at === undefined ? {} : { at: command.at };
  switch (command.type) {
    case "AddExtension": {
      const key = nameToKey(command.name);
      if (key === "") {
        return rejected(
          "EMPTY_EXTENSION_KEY",
          `extension name ${JSON.stringify(command.name)} has no letters, digits, "_" or "-", so its key is empty; give the extension a name with at least one of them`,
        );
      }
      const event: ToolledgerEvent = {
        type: "ExtensionAdded",
        v,
        ...at,
        name: command.name,
        kind: command.kind,
        exposeUnprefixed: command.exposeUnprefixed ?? false,
        hidden: command.hidden ?? false,
        availableTools: command.availableTools ?? [],
        configFingerprint: command.configFingerprint,
      };
      // R6: an identical config is a no-op, so nothing is appended.
      return accepted(evolve(state, event) === state ? [] : [event]);
    }
    case "InvalidateTools":
      // R11: without an extension it is the host's own invalidate, valid with none loaded.
      if (command.extension === undefined)
        return accepted([{ type: "ToolsInvalidated", v, ...at }]);
      return decideForExtension(state, command, command.extension, at);
    case "RemoveExtension":
    case "RecordFetch":
    case "RecordFetchFailure":
    case "InvalidatePrompts":
    case "InvalidateResources":
    case "RecordPrompts":
    case "RecordResources":
      return decideForExtension(state, command, command.extension, at);
    case "ConfigureDeferral": {
      const event: ToolledgerEvent = {
        type: "DeferralConfigured",
        v,
        ...at,
        mode: command.mode,
        alwaysLoad: command.alwaysLoad ?? [],
      };
      return accepted(evolve(state, event) === state ? [] : [event]);
    }
    case "EnableTools":
    case "RequestEnableTools": {
      if (
        state.pending.some((p) => p.callId === command.callId) ||
        hhas(state.answered, command.callId)
      ) {
        return rejected(
          "DUPLICATE_CALL_ID",
          `call id ${JSON.stringify(command.callId)} was already used in this conversation; use a fresh call id`,
        );
      }
      const request: ToolledgerEvent = {
        type: "EnableToolsRequested",
        v,
        ...at,
        callId: command.callId,
        names: [...command.names],
      };
      // D5: the two-step form records the request alone; the host's layer answers later.
      if (command.type === "RequestEnableTools") return accepted([request]);
      return accepted([request, respond(state, command.callId, command.names, at)]);
    }
    case "ApproveEnableTools":
    case "DenyEnableTools": {
      const request = state.pending.find((p) => p.callId === command.callId);
      if (!request) {
        return rejected(
          "UNKNOWN_CALL_ID",
          `no enable_tools request with call id ${JSON.stringify(command.callId)} is awaiting a response (pending: ${state.pending.map((p) => JSON.stringify(p.callId)).join(", ") || "none"}); record it first with RequestEnableTools`,
        );
      }
      if (command.type === "ApproveEnableTools")
        return accepted([respond(state, command.callId, request.names, at)]);
      return accepted([
        {
          type: "EnableToolsResponded",
          v,
          ...at,
          callId: command.callId,
          ok: false,
          error: { code: "DENIED", message: command.reason, invalid: [] },
        },
      ]);
    }
    case "Compact":
      return accepted([
        {
          type: "Compacted",
          v,
          ...at,
          enabled: [...state.enabled],
          pending: state.pending.map((p) => ({ callId: p.callId, names: [...p.names] })),
          answered: hkeys(state.answered),
          anomalies: [...state.anomalies],
          anomalyCount: state.anomalyCount,
        },
      ]);
    case "Clear":
      return accepted([{ type: "Cleared", v, ...at }]);
    case "StartHost":
      return accepted([
        {
          type: "HostStarted",
          v,
          ...at,
          hostname: command.hostname,
          ...(command.pid === undefined ? {} : { pid: command.pid }),
          ...(command.toolledgerVersion === undefined
            ? {}
            : { toolledgerVersion: command.toolledgerVersion }),
        },
      ]);
    case "StartConversation":
    case "ResumeConversation": {
      if (command.type === "StartConversation" && state.conversation !== null) {
        return rejected(
          "CONVERSATION_EXISTS",
          `this stream already holds a conversation (started ${state.conversation.startedAt ?? "earlier"}); resume it instead of starting it again`,
        );
      }
      return accepted([
        {
          type:
            command.type === "StartConversation" ? "ConversationStarted" : "ConversationResumed",
          v,
          ...at,
          registryStream: command.registryStream,
          client: command.client ?? null,
          protocolVersion: command.protocolVersion ?? null,
          transport: command.transport ?? null,
          hostname: command.hostname ?? null,
        },
      ]);
    }
    case "CloseConversation":
      // Closing twice records nothing the second time.
      if (state.conversation?.status === "closed") return accepted([]);
      return accepted([{ type: "ConversationClosed", v, ...at, reason: command.reason }]);
    case "StartCall":
      return decideCall(state, command, at);
    case "RequireAuthorization":
    case "RecordAuthorization":
    case "RecordTokenRefresh":
    case "RecordAuthorizationFailure":
      return decideAuthorization(state, command, at);
    case "FinishCall":
      return accepted([
        {
          type: "ToolCallFinished",
          v,
          ...at,
          callId: command.callId,
          outcome: command.outcome,
          durationMs: command.durationMs,
          reason: command.reason ?? null,
          error: command.error ?? null,
          ...(command.result === undefined ? {} : { result: command.result }),
        },
      ]);
    default: {
      const unreachable: never = command;
      return unreachable;
    }
  }
}

/** E6: the command as its schema reads it, or a typed refusal that says what to fix. */
function parseCommand(input: unknown): { ok: true; command: ParsedCommand } | Rejection {
  const isObject = typeof input === "object" && input !== null && !Array.isArray(input);
  const type = isObject ? (input as { type?: unknown }).type : undefined;
  if (!isObject) {
    return rejected(
      "INVALID_COMMAND",
      `a command must be an object with a "type" (one of ${COMMAND_TYPES.join(", ")}); got ${preview(input)}`,
      "",
    );
  }
  if (typeof type !== "string" || !(COMMAND_TYPES as readonly string[]).includes(type)) {
    return rejected(
      "UNKNOWN_COMMAND",
      `unknown command type ${preview(type)}; the command types are ${COMMAND_TYPES.join(", ")}`,
      "type",
    );
  }
  // C4: the two commands of every tools/call skip zod when plainly valid (the hot path).
  const call = type === "StartCall" || type === "FinishCall" ? parseCallCommand(input) : null;
  const parsed = call ? { success: true as const, data: call } : CommandSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String).join(".");
    if (type === "ConfigureDeferral" && path === "mode") {
      return rejected(
        "UNKNOWN_DEFERRAL_MODE",
        `ConfigureDeferral: unknown deferral mode ${preview((input as { mode?: unknown }).mode)}; the modes are ${DEFERRAL_MODES.map((m) => JSON.stringify(m)).join(" and ")} (D1: lookup is the only deferral strategy)`,
        "mode",
      );
    }
    return rejected(
      "INVALID_COMMAND",
      `${type}: ${path || "command"}: ${issue.message}; the command was not applied`,
      path,
    );
  }
  let command = parsed.data;
  // Recorded payloads are free-form too, and must reload as they were folded. JSON has no
  // negative zero: a -0 in them is recorded as the 0 the log reloads (rare: only then a copy).
  const seen: JsonSeen = { negativeZero: false };
  const payload =
    command.type === "StartCall"
      ? command.arguments
      : command.type === "FinishCall"
        ? command.result
        : undefined;
  if (payload !== undefined) {
    const field = command.type === "StartCall" ? "arguments" : "result";
    const problem = jsonProblem(payload, [field], seen);
    if (problem) {
      const path = problem.path.join(".");
      return rejected("INVALID_COMMAND", `${command.type}: ${path}: ${problem.message}`, path);
    }
    if (seen.negativeZero)
      command =
        command.type === "StartCall"
          ? { ...command, arguments: asReloaded(command.arguments) }
          : command.type === "FinishCall"
            ? { ...command, result: asReloaded(command.result) }
            : command;
  }
  if (command.type === "RecordPrompts" || command.type === "RecordResources") {
    const listed =
      command.type === "RecordPrompts"
        ? { prompts: command.prompts }
        : { resources: command.resources, resourceTemplates: command.resourceTemplates };
    const problem = jsonProblem(listed, [], seen);
    if (problem) {
      const path = problem.path.join(".");
      return rejected("INVALID_COMMAND", `${command.type}: ${path}: ${problem.message}`, path);
    }
    if (seen.negativeZero) command = { ...command, ...asReloaded(listed) };
  }
  if (command.type === "RecordFetch") {
    // The tools' free-form fields (schemas, _meta) must survive the log's JSON round trip.
    const problem = jsonProblem(command.tools, ["tools"], seen);
    if (problem) {
      const path = problem.path.join(".");
      return rejected("INVALID_COMMAND", `RecordFetch: ${path}: ${problem.message}`, path);
    }
    if (seen.negativeZero) command = { ...command, tools: asReloaded(command.tools) };
    if (command.complete === false && command.reason === undefined) {
      return rejected(
        "INVALID_COMMAND",
        'RecordFetch: reason: a partial fetch (complete: false) needs the reason it stopped (R9), e.g. "tools/list page 2 failed: timeout"',
        "reason",
      );
    }
  }
  return { ok: true, command };
}

function preview(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "function") return "a function";
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "symbol") return value.toString();
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    // A cyclic or otherwise unprintable value still gets a refusal, not a throw.
    text = Object.prototype.toString.call(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

type ExtensionCommand = Extract<
  ParsedCommand,
  {
    type:
      | "RemoveExtension"
      | "InvalidateTools"
      | "RecordFetch"
      | "RecordFetchFailure"
      | "InvalidatePrompts"
      | "InvalidateResources"
      | "RecordPrompts"
      | "RecordResources";
  }
>;

function decideForExtension(
  state: State,
  command: ExtensionCommand,
  extension: string,
  at: At,
): Decision {
  const key = nameToKey(extension);
  if (!hget(state.extensions, key)) {
    return rejected(
      "UNKNOWN_EXTENSION",
      `no extension ${JSON.stringify(extension)} (key ${JSON.stringify(key)}); known: ${hkeys(state.extensions).sort().join(", ") || "none"}`,
    );
  }
  switch (command.type) {
    case "RemoveExtension":
      return accepted([{ type: "ExtensionRemoved", v, ...at, extension: key }]);
    case "InvalidateTools":
      return accepted([{ type: "ToolsInvalidated", v, ...at, extension: key }]);
    case "RecordFetch": {
      const wireNames =
        command.startedAtVersion === state.version
          ? decideWireNames(state, key, command.tools, command.outerPrefixBudget ?? 0)
          : [];
      return accepted([
        {
          type: "ToolsFetched",
          v,
          ...at,
          extension: key,
          startedAtVersion: command.startedAtVersion,
          tools: command.tools,
          ...(command.complete === false ? { complete: false, reason: command.reason ?? "" } : {}),
          ...(wireNames.length > 0 ? { wireNames } : {}),
        },
      ]);
    }
    case "RecordFetchFailure":
      return accepted([
        {
          type: "ToolsFetchFailed",
          v,
          ...at,
          extension: key,
          startedAtVersion: command.startedAtVersion,
          error: command.error,
        },
      ]);
    case "InvalidatePrompts":
      return accepted([{ type: "PromptsInvalidated", v, ...at, extension: key }]);
    case "InvalidateResources":
      return accepted([{ type: "ResourcesInvalidated", v, ...at, extension: key }]);
    case "RecordPrompts":
      return accepted([
        {
          type: "PromptsFetched",
          v,
          ...at,
          extension: key,
          startedAtVersion: command.startedAtVersion,
          prompts: command.prompts,
          ...(command.error === undefined ? {} : { error: command.error }),
        },
      ]);
    case "RecordResources":
      return accepted([
        {
          type: "ResourcesFetched",
          v,
          ...at,
          extension: key,
          startedAtVersion: command.startedAtVersion,
          resources: command.resources,
          resourceTemplates: command.resourceTemplates,
          ...(command.error === undefined ? {} : { error: command.error }),
        },
      ]);
  }
}

/**
 * C4 + R13 + D9: records a call as it arrives. A call the registry refuses (unknown,
 * ambiguous, app-only, hidden, deferred and not enabled) is finished at once as `refused`
 * with its reason; `enable_tools` in lookup mode is the built-in tool and always starts.
 */
function decideCall(
  state: State,
  command: Extract<ParsedCommand, { type: "StartCall" }>,
  at: At,
): Decision {
  const args = command.arguments === undefined ? {} : { arguments: command.arguments };
  const check = checkCall(
    state,
    command.name,
    command.includeHidden ? { includeHidden: true } : {},
  );
  if (check.ok && check.builtin) {
    return accepted([
      {
        type: "ToolCallStarted",
        v,
        ...at,
        callId: command.callId,
        name: command.name,
        publicName: ENABLE_TOOLS_NAME,
        owner: null,
        rawName: null,
        ...args,
      },
    ]);
  }
  // A refused call still names the tool it resolved to (deferred, app-only, hidden), for the audit.
  const resolved = check.ok ? check : resolveTool(state, command.name, { includeHidden: true });
  const started: ToolledgerEvent = {
    type: "ToolCallStarted",
    v,
    ...at,
    callId: command.callId,
    name: command.name,
    publicName: resolved.ok ? resolved.publicName : null,
    owner: resolved.ok ? resolved.extension : null,
    rawName: resolved.ok ? resolved.rawName : null,
    ...args,
  };
  if (check.ok) return accepted([started]);
  // The model is told a hidden tool is unknown (R8); the log says why, for whoever audits it.
  const hidden = check.error.code === "UNKNOWN_TOOL" && !command.includeHidden && resolved.ok;
  const reason = hidden ? "HIDDEN_TOOL" : check.error.code;
  return accepted([
    started,
    {
      type: "ToolCallFinished",
      v,
      ...at,
      callId: command.callId,
      // C4: a call to a down extension's tool is unavailable, not refused by the registry.
      outcome: reason === "EXTENSION_UNAVAILABLE" ? "unavailable" : "refused",
      durationMs: 0,
      reason,
      error: check.error.message,
    },
  ]);
}

/**
 * R14: decides, once, the wire names of a fetch's tools that need one, to be recorded with
 * it: the extension's earlier choice when the name still needs one and it still fits, else
 * a name within 64 minus the host's outer-prefix budget. Folding the event applies exactly
 * these (see `evolve`).
 */
function decideWireNames(
  state: State,
  key: string,
  tools: readonly McpTool[],
  budget: number,
): { rawName: string; wireName: string }[] {
  const ext = hget(state.extensions, key)!;
  const limit = MAX_WIRE_NAME_LENGTH - budget;
  const registered = registeredView(ext, tools);
  // The earlier choice is kept for a name that still needs one; a name that now fits is served as is.
  const earlier = new Map<string, string>();
  for (const t of ext.tools)
    if (t.wireName !== t.publicName && !fitsWire(t.publicName, limit))
      earlier.set(t.rawName, t.wireName);
  const wires = assignWireNames(
    state.extensions,
    state.unprefixed,
    state.wireNames,
    ext,
    registered,
    earlier,
    limit,
  );
  return registered.flatMap((t, i) =>
    wires[i] === t.publicName ? [] : [{ rawName: t.rawName, wireName: wires[i]! }],
  );
}

/** The tools a fetch would register (R9 filters), with their public names. */
function registeredView(ext: ExtensionState, tools: readonly McpTool[]): RegisteredTool[] {
  const allowed = ext.availableTools.length > 0 ? new Set(ext.availableTools) : null;
  const seen = new Set<string>();
  const out: RegisteredTool[] = [];
  for (const raw of tools) {
    if ((allowed && !allowed.has(raw.name)) || seen.has(raw.name) || !isMcpToolDefinition(raw))
      continue;
    seen.add(raw.name);
    const publicName = ext.exposeUnprefixed ? raw.name : `${ext.key}__${raw.name}`;
    out.push({ publicName, wireName: publicName, rawName: raw.name, owner: ext.key, raw });
  }
  return out;
}

/** D5: the response to a request, validated against the registry of this moment. */
function respond(state: State, callId: string, names: readonly string[], at: At): ToolledgerEvent {
  const error = validateEnable(state, names);
  return error
    ? { type: "EnableToolsResponded", v, ...at, callId, ok: false, error }
    : { type: "EnableToolsResponded", v, ...at, callId, ok: true };
}

/** D5: all-or-nothing validation against the model-visible tools of the current registry. */
function validateEnable(state: State, names: readonly string[]): EnableError | null {
  if (names.length === 0) {
    return {
      code: "EMPTY_REQUEST",
      message: `${ENABLE_TOOLS_NAME} needs at least one exact tool name in "names"; nothing was enabled`,
      invalid: [],
    };
  }
  const invalid: EnableError["invalid"] = [];
  let visibleNames: string[] | null = null;
  for (const name of names) {
    // R14: the model names tools by the wire names it was served; public names work too.
    const tool =
      winnerOf(state, name) ?? (state.wireNames.size > 0 ? wireWinner(state, name) : undefined);
    const cls = tool ? classifyTool(state, tool).class : "hidden";
    // Hidden tools are reported as unknown: R8 keeps them out of everything the model sees.
    if (cls === "hidden") {
      visibleNames ??= listTools(state)
        .filter((t) => classifyTool(state, t).class !== "app-only")
        .map((t) => t.wireName);
      invalid.push({ name, reason: "unknown tool", suggestions: closeNames(name, visibleNames) });
    } else if (cls === "app-only") {
      invalid.push({ name, reason: "app-only tool (not visible to the model)", suggestions: [] });
    }
  }
  if (invalid.length === 0) return null;
  const detail = invalid
    .map(
      (i) =>
        `${JSON.stringify(i.name)}: ${i.reason}${i.suggestions.length > 0 ? ` (did you mean ${i.suggestions.join(", ")}?)` : ""}`,
    )
    .join("; ");
  return {
    code: "INVALID_TOOL_NAMES",
    message: `${ENABLE_TOOLS_NAME} enabled nothing: ${detail}. Use the exact names from the deferred tools list.`,
    invalid,
  };
}

function accepted(events: ToolledgerEvent[]): Decision {
  return { ok: true, events };
}

function rejected(code: CommandErrorCode, message: string, path?: string): Rejection {
  return { ok: false, error: path === undefined ? { code, message } : { code, message, path } };
}
