import {
  type ExtensionEraDetected,
  getExtension,
  nameToKey,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import { describeEraChange, eraChange } from "../replay/eraChange.js";
import { describeOAuthChange, oauthChange } from "../replay/oauthChange.js";
import { describeSearch } from "./describeSearch.js";
import type { AnyEvent, DescribeContext, EventDescription, Severity } from "./eventDescription.js";

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Kinds that arrive after this build's core (conversations, calls, prompts…): rendered from their fields. */
export function describeOther(
  event: AnyEvent,
  index: number,
  before: State,
  ctx: DescribeContext,
): EventDescription & { related?: number } {
  switch (event.type) {
    case "ToolsSearched":
      return describeSearch(event, ctx);
    case "ToolCallStarted": {
      const callId = str(event.callId) ?? "";
      const name = str(event.name) ?? "?";
      const owner = str(event.owner);
      const extensions = owner ? [owner] : [];
      ctx.calls.set(callId, { index, name, extensions });
      const raw = str(event.rawName);
      return {
        extensions,
        text: `→ call ${name}${owner ? ` (${owner}${raw && raw !== name ? `: ${raw}` : ""})` : ""}`,
        severity: "info",
        rules: ["C4"],
      };
    }
    case "ToolCallFinished": {
      const callId = str(event.callId) ?? "";
      const call = ctx.calls.get(callId);
      const outcome = str(event.outcome) ?? "?";
      const ms = typeof event.durationMs === "number" ? ` in ${formatMs(event.durationMs)}` : "";
      const reason = str(event.reason);
      const error = str(event.error);
      const severity: Severity =
        outcome === "ok"
          ? "ok"
          : outcome === "tool_error" || outcome === "refused"
            ? "warn"
            : "error";
      const rules = ["C4"];
      if (reason === "TOOL_NOT_ENABLED") rules.push("D9");
      if (reason === "UNKNOWN_TOOL" || reason === "AMBIGUOUS_TOOL") rules.push("R13");
      if (reason === "HIDDEN_TOOL") rules.push("R8");
      if (reason === "APP_ONLY_TOOL") rules.push("D3");
      return {
        extensions: call?.extensions ?? [],
        text: `${outcome === "ok" ? "✓" : "✗"} ${call?.name ?? callId} ${outcome.replaceAll("_", " ")}${ms}${reason ? ` (${reason})` : ""}${error ? `: ${oneLine(error, 120)}` : ""}`,
        severity,
        rules,
        ...(call === undefined ? {} : { related: call.index }),
      };
    }
    case "TaskCreated": {
      const call = ctx.calls.get(str(event.callId) ?? "");
      const runner = str(event.runner);
      return {
        extensions: call?.extensions ?? [],
        text: `◷ ${call?.name ?? "a call"} runs as task ${(str(event.taskId) ?? "").slice(0, 8)}, ${runner === "server" ? "by its server" : "by the gateway"}${event.requested === false ? " on the client's behalf" : ""}`,
        severity: "info",
        rules: ["C6", "G4"],
        ...(call === undefined ? {} : { related: call.index }),
      };
    }
    case "TaskStatusChanged": {
      const status = str(event.status) ?? "?";
      const message = str(event.message);
      return {
        extensions: [],
        text: `task ${(str(event.taskId) ?? "").slice(0, 8)} ${status.replaceAll("_", " ")}${message ? `: ${oneLine(message, 120)}` : ""}`,
        severity:
          status === "completed"
            ? "ok"
            : status === "working" || status === "input_required"
              ? "info"
              : status === "cancelled"
                ? "warn"
                : "error",
        rules: ["C6"],
      };
    }
    case "ConversationStarted":
    case "ConversationResumed": {
      const client = event.client as { name?: string; version?: string } | undefined;
      const transport = str(event.transport);
      return {
        extensions: [],
        text: `conversation ${event.type === "ConversationStarted" ? "started" : "resumed"}${client?.name ? `: client ${client.name}${client.version ? ` ${client.version}` : ""}` : ""}${transport ? ` over ${transport}` : ""}${str(event.protocolVersion) ? ` (protocol ${str(event.protocolVersion)})` : ""}`,
        severity: "info",
        rules: event.type === "ConversationStarted" ? ["C5", "C1"] : ["C3", "C5"],
      };
    }
    case "ConversationClosed":
      // L3: ended for a gateway that is gone, by whoever found it gone.
      if (event.reason === "lost")
        return {
          extensions: [],
          text: `conversation lost: its gateway stopped without closing it${str(event.lastSeen) ? ` (last seen ${str(event.lastSeen)})` : ""}; calls it left running are recorded as unknown`,
          severity: "warn",
          rules: ["L3"],
        };
      return {
        extensions: [],
        text: `conversation closed${str(event.reason) ? `: ${str(event.reason)}` : ""}`,
        severity: "info",
        rules: ["C3"],
      };
    case "OAuthAuthorizationRequired":
    case "OAuthAuthorized":
    case "OAuthTokenRefreshed":
    case "OAuthAuthorizationFailed": {
      // A1–A4: an OAuth event records no secret; its one line says what happened.
      const change = oauthChange(event as unknown as ToolledgerEvent)!;
      return {
        extensions: [nameToKey(change.extension)],
        text: describeOAuthChange(change),
        severity: change.event === "failed" ? "error" : change.event === "required" ? "warn" : "ok",
        rules:
          change.event === "refreshed"
            ? ["A2"]
            : change.event === "required"
              ? ["A4", "A1"]
              : ["A1", "A2"],
      };
    }
    case "ExtensionEraDetected": {
      // V1: which protocol era the server speaks, and how the gateway found out.
      const change = eraChange(event as unknown as ExtensionEraDetected);
      return {
        extensions: [nameToKey(change.extension)],
        text: describeEraChange(change),
        severity: "info",
        rules: ["V1"],
      };
    }
    case "HostStarted":
      return {
        extensions: [],
        text: `host started${str(event.hostname) ? ` on ${str(event.hostname)}` : ""}${typeof event.pid === "number" ? ` (pid ${event.pid})` : ""}${str(event.toolledgerVersion) ? `, toolledger ${str(event.toolledgerVersion)}` : ""}`,
        severity: "info",
        rules: ["C1"],
      };
    case "PromptsInvalidated":
    case "ResourcesInvalidated": {
      const key = nameToKey(str(event.extension) ?? "");
      const what = event.type === "PromptsInvalidated" ? "prompts" : "resources";
      return {
        extensions: [key],
        text: `${key} sent ${what}/list_changed`,
        severity: "info",
        rules: ["G1"],
      };
    }
    case "PromptsFetched":
    case "ResourcesFetched": {
      const key = nameToKey(str(event.extension) ?? "");
      const error = str(event.error);
      const listed =
        event.type === "PromptsFetched"
          ? `${Array.isArray(event.prompts) ? event.prompts.length : 0} prompt(s)`
          : `${Array.isArray(event.resources) ? event.resources.length : 0} resource(s), ${Array.isArray(event.resourceTemplates) ? event.resourceTemplates.length : 0} template(s)`;
      const what = event.type === "PromptsFetched" ? "prompt" : "resource";
      const catalog = (
        getExtension(before, key) as { catalog?: Record<string, { version?: number }> } | undefined
      )?.catalog;
      const listVersion =
        catalog?.[event.type === "PromptsFetched" ? "promptsList" : "resourcesList"]?.version ?? 0;
      if (Number(event.startedAtVersion) !== listVersion) {
        return {
          extensions: [key],
          text: `stale ${what} list of ${key} ignored (started at its list version ${String(event.startedAtVersion)}): no change`,
          severity: "warn",
          rules: ["G1", "R11"],
        };
      }
      return {
        extensions: [key],
        text: error
          ? `fetching ${key}'s ${what}s failed: ${oneLine(error, 120)}`
          : `${key} listed ${listed}`,
        severity: error ? "error" : "ok",
        rules: ["G1"],
      };
    }
    default: {
      const { type: _type, v: _v, at: _at, ...fields } = event;
      const key = str(fields.extension);
      return {
        extensions: key ? [nameToKey(key)] : [],
        text: oneLine(JSON.stringify(fields), 160),
        severity: "info",
        rules: [],
      };
    }
  }
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
