import type { ToolCallResult } from "../connection/extensionConnection.js";
import type { UpstreamCallOptions } from "../host/callUpstream.js";

// callTool's options and outcome, in their own file: the built-in calls (enable_tools,
// search_tools) that callTool hands a call to return the same outcome.

export interface CallToolOptions {
  /** Overrides the host's call timeout. */
  timeoutMs?: number;
  /** Cancels the call; the server gets `notifications/cancelled`. */
  signal?: AbortSignal;
  /** R8: let hidden extensions' tools resolve (host-internal calls only). */
  includeHidden?: boolean;
  /** The call id recorded for the call (and its enable_tools request). Default: a fresh UUID. */
  callId?: string;
  /** G1: the server's progress reports; only with it is a progress token sent up. */
  onprogress?: UpstreamCallOptions["onprogress"];
  /** G1: the request's other `_meta` entries, passed up as sent. */
  meta?: Record<string, unknown>;
  /**
   * Told the owning extension's key just before the call goes to its server (after its
   * ToolCallStarted is decided); a promise it returns is awaited first.
   */
  onStart?: (extension: string) => void | Promise<void>;
  /**
   * G4: sends the call up task-augmented (`{ ttl? }`). When the server answers with a
   * CreateTaskResult the call stays open (no ToolCallFinished): its task's end finishes it
   * (`recordTask`, C6).
   */
  upstreamTask?: Record<string, unknown>;
  /**
   * Told the server's result the moment it arrives, before `callTool` returns it (and before
   * the call's finish is decided): the stdio gateway answers its client from here. Not told
   * for a task-augmented call, a refusal, a failure, or the built-ins.
   */
  onResult?: (result: ToolCallResult) => void;
  /**
   * C4, as the gateway records: the call's events are written behind. Its ToolCallStarted is
   * decided (resolved, refused or not) before the call goes upstream, which does not wait for
   * the store; a server's answer is returned before its ToolCallFinished is decided (right
   * after the caller's turn, before anything else the conversation decides); both events are
   * appended in the conversation's next group commit, within the
   * conversation's `writeBehind.commitWindowMs`, before its next command, its close and the
   * host's stop. Events the store refuses are kept and retried; while `maxHeld` of them wait,
   * a new call is refused (APPEND_REJECTED). Off by default: a caller that reads the log or
   * `state` right after the call sees both events.
   */
  recordFinishAfterAnswer?: boolean;
}

export type CallRefusalCode =
  | "UNKNOWN_TOOL"
  | "AMBIGUOUS_TOOL"
  | "APP_ONLY_TOOL"
  | "TOOL_NOT_ENABLED"
  | "INVALID_ARGUMENTS"
  | "EXTENSION_UNAVAILABLE"
  | "TOOL_AWAITS_APPROVAL"
  | "TOOL_REJECTED";

/** A tool call's outcome: a server result, or a refusal made before any server saw the call. */
export type CallToolOutcome =
  | { ok: true; publicName: string; extension: string; rawName: string; result: ToolCallResult }
  | {
      ok: false;
      error: { code: CallRefusalCode; name: string; message: string; suggestions: string[] };
    };
