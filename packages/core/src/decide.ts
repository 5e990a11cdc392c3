import { hget, hhas, hkeys } from "./_hashDict.js";
import { winnerOf } from "./_registry.js";
import { checkCall } from "./checkCall.js";
import { classifyTool } from "./classifyTool.js";
import { closeNames } from "./closeNames.js";
import {
  type CallOutcome,
  type ConversationClient,
  type DeferralMode,
  type EnableError,
  EVENT_SCHEMA_VERSION,
  type McpPrompt,
  type McpResource,
  type McpResourceTemplate,
  type McpTool,
  type ToolledgerEvent,
} from "./events.js";
import { evolve } from "./evolve.js";
import { listTools } from "./listTools.js";
import { ENABLE_TOOLS_NAME } from "./modelView.js";
import { nameToKey } from "./nameToKey.js";
import { resolveTool } from "./resolveTool.js";
import type { State } from "./state.js";

const v = EVENT_SCHEMA_VERSION;

interface Timed {
  /** ISO-8601 time to stamp on the events (E2: supplied by the caller). */
  at?: string;
}

export type Command = Timed &
  (
    | {
        type: "AddExtension";
        name: string;
        kind: string;
        exposeUnprefixed?: boolean;
        hidden?: boolean;
        availableTools?: string[];
        configFingerprint: string;
      }
    | { type: "RemoveExtension"; extension: string }
    | { type: "InvalidateTools"; extension: string }
    | { type: "RecordFetch"; extension: string; startedAtVersion: number; tools: McpTool[] }
    | { type: "RecordFetchFailure"; extension: string; startedAtVersion: number; error: string }
    | { type: "ConfigureDeferral"; mode: DeferralMode; alwaysLoad?: string[] }
    | { type: "EnableTools"; callId: string; names: string[] }
    | { type: "Compact" }
    | { type: "Clear" }
    | { type: "InvalidatePrompts"; extension: string }
    | { type: "InvalidateResources"; extension: string }
    | {
        type: "RecordPrompts";
        extension: string;
        startedAtVersion: number;
        prompts: McpPrompt[];
        error?: string;
      }
    | {
        type: "RecordResources";
        extension: string;
        startedAtVersion: number;
        resources: McpResource[];
        resourceTemplates: McpResourceTemplate[];
        error?: string;
      }
    | { type: "StartHost"; hostname: string; pid?: number; toolledgerVersion?: string }
    | ({ type: "StartConversation" } & ConversationOpening)
    | ({ type: "ResumeConversation" } & ConversationOpening)
    | { type: "CloseConversation"; reason: string }
    | {
        type: "StartCall";
        callId: string;
        /** The name as the client called it. */
        name: string;
        /** Only when the host records payloads (already truncated and redacted). */
        arguments?: unknown;
        /** R8: host-internal calls may resolve hidden tools. */
        includeHidden?: boolean;
      }
    | {
        type: "FinishCall";
        callId: string;
        outcome: CallOutcome;
        durationMs: number;
        /** The refusal code when the host refuses a call the registry allowed (bad arguments). */
        reason?: string;
        error?: string;
        result?: unknown;
      }
  );

/** C1/C5: what a conversation records when it starts or is reopened. */
export interface ConversationOpening {
  registryStream: string;
  client?: ConversationClient | null;
  protocolVersion?: string | null;
  transport?: string | null;
  hostname?: string | null;
}

export type CommandErrorCode =
  | "EMPTY_EXTENSION_KEY"
  | "UNKNOWN_EXTENSION"
  | "DUPLICATE_CALL_ID"
  | "CONVERSATION_EXISTS"
  | "CONVERSATION_CLOSED";

export type Decision =
  | { ok: true; events: ToolledgerEvent[] }
  | { ok: false; error: { code: CommandErrorCode; message: string } };

/**
 * E4: decisions live here; the reducer only folds what was decided. A failed enable is
 * still a decision: it yields the request and a failed response, so the audit sees it.
 */
export function decide(state: State, command: Command): Decision {
  const at = command.at === undefined ? {} : { at: command.at };
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
    case "RemoveExtension":
    case "InvalidateTools":
    case "RecordFetch":
    case "RecordFetchFailure":
    case "InvalidatePrompts":
    case "InvalidateResources":
    case "RecordPrompts":
    case "RecordResources": {
      const key = nameToKey(command.extension);
      if (!hget(state.extensions, key)) {
        return rejected(
          "UNKNOWN_EXTENSION",
          `no extension ${JSON.stringify(command.extension)} (key ${JSON.stringify(key)}); known: ${hkeys(state.extensions).sort().join(", ") || "none"}`,
        );
      }
      if (command.type === "InvalidatePrompts")
        return accepted([{ type: "PromptsInvalidated", v, ...at, extension: key }]);
      if (command.type === "InvalidateResources")
        return accepted([{ type: "ResourcesInvalidated", v, ...at, extension: key }]);
      const error =
        "error" in command && command.error !== undefined ? { error: command.error } : {};
      if (command.type === "RecordPrompts") {
        return accepted([
          {
            type: "PromptsFetched",
            v,
            ...at,
            extension: key,
            startedAtVersion: command.startedAtVersion,
            prompts: command.prompts,
            ...error,
          },
        ]);
      }
      if (command.type === "RecordResources") {
        return accepted([
          {
            type: "ResourcesFetched",
            v,
            ...at,
            extension: key,
            startedAtVersion: command.startedAtVersion,
            resources: command.resources,
            resourceTemplates: command.resourceTemplates,
            ...error,
          },
        ]);
      }
      if (command.type === "RemoveExtension")
        return accepted([{ type: "ExtensionRemoved", v, ...at, extension: key }]);
      if (command.type === "InvalidateTools")
        return accepted([{ type: "ToolsInvalidated", v, ...at, extension: key }]);
      if (command.type === "RecordFetch") {
        return accepted([
          {
            type: "ToolsFetched",
            v,
            ...at,
            extension: key,
            startedAtVersion: command.startedAtVersion,
            tools: command.tools,
          },
        ]);
      }
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
    }
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
      return decideEnable(state, command.callId, command.names, at);
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

/**
 * C4 + R13 + D9: records a call as it arrives. A call the registry refuses (unknown,
 * ambiguous, app-only, hidden, deferred and not enabled) is finished at once as `refused`
 * with its reason; `enable_tools` in lookup mode is the built-in tool and always starts.
 */
function decideCall(
  state: State,
  command: Extract<Command, { type: "StartCall" }>,
  at: { at?: string },
): Decision {
  const args = command.arguments === undefined ? {} : { arguments: command.arguments };
  if (command.name === ENABLE_TOOLS_NAME && state.deferral.mode === "lookup") {
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
  const check = checkCall(
    state,
    command.name,
    command.includeHidden ? { includeHidden: true } : {},
  );
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
      outcome: "refused",
      durationMs: 0,
      reason,
      error: check.error.message,
    },
  ]);
}

/** D5: all-or-nothing validation against the model-visible tools of the current registry. */
function decideEnable(
  state: State,
  callId: string,
  names: string[],
  at: { at?: string },
): Decision {
  if (state.pending.some((p) => p.callId === callId) || hhas(state.answered, callId)) {
    return rejected(
      "DUPLICATE_CALL_ID",
      `call id ${JSON.stringify(callId)} was already used in this conversation; use a fresh call id`,
    );
  }
  const request: ToolledgerEvent = {
    type: "EnableToolsRequested",
    v,
    ...at,
    callId,
    names: [...names],
  };
  const error = validateEnable(state, names);
  const response: ToolledgerEvent = error
    ? { type: "EnableToolsResponded", v, ...at, callId, ok: false, error }
    : { type: "EnableToolsResponded", v, ...at, callId, ok: true };
  return accepted([request, response]);
}

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
    const tool = winnerOf(state, name);
    const cls = tool ? classifyTool(state, tool).class : "hidden";
    // Hidden tools are reported as unknown: R8 keeps them out of everything the model sees.
    if (cls === "hidden") {
      visibleNames ??= listTools(state)
        .filter((t) => classifyTool(state, t).class !== "app-only")
        .map((t) => t.publicName);
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

function rejected(code: CommandErrorCode, message: string): Decision {
  return { ok: false, error: { code, message } };
}
