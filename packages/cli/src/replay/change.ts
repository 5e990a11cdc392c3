import type { Anomaly } from "@toolledger/core";
import type { EraChange } from "./eraChange.js";
import type { OAuthChange } from "./oauthChange.js";
import type { PinChange } from "./pinChanges.js";

/** What one event changed, in terms a user reads (E3). */
export type Change =
  | {
      kind: "extension_added";
      extension: string;
      name: string;
      extensionKind: string;
      hidden: boolean;
      replaced: boolean;
    }
  | { kind: "extension_removed"; extension: string; toolsDropped: number }
  | { kind: "version"; from: number; to: number }
  | { kind: "tools_added"; extension: string; names: string[] }
  | { kind: "tools_removed"; extension: string; names: string[] }
  | { kind: "tool_renamed"; extension: string; rawName: string; from: string; to: string }
  | { kind: "tools_rejected"; extension: string; tools: { rawName: string; reason: string }[] }
  | {
      kind: "wire_names";
      extension: string;
      /** R14: tools served to models under another name than their public name. */
      tools: { publicName: string; wireName: string }[];
    }
  | { kind: "collision"; publicName: string; winner: string; losers: string[] }
  | { kind: "collision_resolved"; publicName: string }
  | { kind: "stale_fetch_ignored"; extension: string; startedAtVersion: number; version: number }
  | { kind: "fetch_failed"; extension: string; error: string }
  | { kind: "partial_fetch"; extension: string; reason: string }
  | { kind: "deferral"; mode: string; alwaysLoad: string[] }
  | { kind: "enable_requested"; callId: string; names: string[] }
  | { kind: "enabled"; names: string[] }
  | { kind: "disabled"; names: string[] }
  | { kind: "pending_dropped"; callIds: string[] }
  | { kind: "compacted"; enabled: string[]; pending: string[] }
  | { kind: "enable_failed"; callId: string; code: string; message: string }
  | { kind: "anomaly"; anomaly: Anomaly["kind"]; callId: string }
  | { kind: "ignored"; reason: string }
  | {
      kind: "catalog_changed";
      extension: string;
      list: "prompts" | "resources";
      added: string[];
      removed: string[];
    }
  | { kind: "catalog_invalidated"; extension: string; list: "prompts" | "resources" }
  | {
      kind: "catalog_fetch_failed";
      extension: string;
      list: "prompts" | "resources";
      error: string;
    }
  | { kind: "host_started"; hostname: string; run: number }
  | { kind: "list_changed"; extension: string }
  | { kind: "host_invalidated" }
  | {
      kind: "conversation_started";
      client: string | null;
      transport: string | null;
      registryStream: string;
      resumed: boolean;
    }
  | { kind: "conversation_closed"; reason: string; lastSeen?: string }
  | {
      kind: "call_started";
      callId: string;
      name: string;
      publicName: string | null;
      owner: string | null;
    }
  | {
      kind: "call_finished";
      callId: string;
      name: string;
      outcome: string;
      reason: string | null;
      durationMs: number;
      error: string | null;
    }
  | PinChange
  | {
      /** S2: a `search_tools` call: what it returned, and whether replay gives the same. */
      kind: "searched";
      callId: string;
      query: string;
      results: string[];
      error: string | null;
      reproduced: boolean;
      /** When not reproduced: what the search gives on the replayed state. */
      resultsNow?: string[];
    }
  | {
      kind: "task_created";
      taskId: string;
      callId: string;
      /** The public name of its call's tool, when the call is known. */
      name: string | null;
      runner: string;
      /** False: the gateway made it for a plain call (the client never saw it). */
      requested: boolean;
      ttlMs: number | null;
    }
  | {
      kind: "task_status";
      taskId: string;
      status: string;
      message: string | null;
      /** The status it left and how long it was in it (from its previous change, or its creation). */
      from: string | null;
      forMs: number | null;
    }
  | OAuthChange
  | EraChange
  | { kind: "no_change" };
