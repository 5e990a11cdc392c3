import { randomUUID } from "node:crypto";
import {
  type CallOutcome,
  type ConversationClient,
  checkCall,
  type DeferralMode,
  type Diagnostic,
  diagnostics,
  downExtension,
  ENABLE_TOOLS_NAME,
  type EnableError,
  initialState,
  type ListToolsOptions,
  listTools,
  type ModelView,
  modelView,
  type RegisteredTool,
  type State,
  type ToolledgerEvent,
  withRegistry,
} from "@toolledger/core";
import { combineLatest, map, type Observable, Subject } from "rxjs";
import { unavailableAdvice } from "./_unavailableAdvice.js";
import { AdapterError, asAdapterError } from "./adapterError.js";
import { capturePayload, type PayloadCapture } from "./capturePayload.js";
import type { ToolCallResult } from "./extensionConnection.js";
import { compactTime, type ToolledgerHost, type UpstreamCallOptions } from "./host.js";
import type { Redactor } from "./redactor.js";
import { type SessionEvent, StreamWriter } from "./streamWriter.js";

export interface ConversationOptions {
  /** The conversation stream. Default `conv-<time>-<random>`; an existing conversation is resumed. */
  id?: string;
  /** C5: `clientInfo` from the client's `initialize`. */
  client?: ConversationClient | null;
  protocolVersion?: string | null;
  /** `stdio`, `streamable_http`, `in_process`, … */
  transport?: string | null;
  /** D1: recorded when the conversation starts (and again on resume when it changed). */
  deferral?: { mode: DeferralMode; alwaysLoad?: readonly string[] };
  /** C4: record call arguments and results (truncated, secrets redacted). Default: off. */
  recordPayloads?: boolean | PayloadCapture;
  /**
   * C3: how often to look for events another process appended to this conversation (a
   * `toolledger clear` from the CLI), in ms. Default 250; 0 never looks.
   */
  followIntervalMs?: number;
  /**
   * D5: the host's permission or hook layer for the model's `enable_tools` calls. With it,
   * a call records the request, asks this, and records the outcome: approved (checked then,
   * against the registry of that moment) or denied with the reason it returns. A hook that
   * throws denies, with its error as the reason. Without it, requests are answered at once.
   */
  authorizeEnable?: (request: EnableRequest) => Promise<EnableDecision> | EnableDecision;
}

/** D5: an `enable_tools` request awaiting the host's decision. */
export interface EnableRequest {
  conversationId: string;
  callId: string;
  names: string[];
}

export type EnableDecision = { approve: true } | { approve: false; reason: string };

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
  /** Told the owning extension's key just before the call goes to its server. */
  onStart?: (extension: string) => void;
  /**
   * C4: resolve with the server's answer once its ToolCallFinished is queued, not stored: the
   * append runs right after this event-loop turn (the gateway's answer to its client goes out
   * first), before the conversation's next command, its close and the host's stop. Off by
   * default: a caller that reads the log or `state` right after the call sees the finish.
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

export type EnableToolsOutcome = { ok: true; names: string[] } | { ok: false; error: EnableError };

/** A new conversation stream id, sortable by start time. */
export function newConversationId(now: Date = new Date()): string {
  return `conv-${compactTime(now)}-${randomUUID().slice(0, 8)}`;
}

/**
 * A conversation (C1–C5) on a host: it owns its stream (deferral, enables, compaction,
 * clear, calls, its client) and reads the host's registry, composing the two into the state
 * its model sees. It follows its own stream, so `Cleared` / `Compacted` appended by another
 * process reach it (C3).
 */
export class Conversation {
  readonly id: string;
  readonly host: ToolledgerHost;
  /** Every event of this conversation's stream, as it is stored or arrives from elsewhere. */
  readonly events$: Observable<SessionEvent>;
  /** What the model sees: the conversation composed with the host's registry. */
  readonly state$: Observable<State>;
  /** Failures that no caller can carry (a call's outcome that could not be recorded). */
  readonly errors$: Observable<AdapterError>;

  readonly #writer: StreamWriter;
  readonly #errors = new Subject<AdapterError>();
  readonly #payloads: PayloadCapture | null;
  readonly #authorizeEnable: ConversationOptions["authorizeEnable"];
  #follow: NodeJS.Timeout | undefined;
  #following: Promise<unknown> | null = null;
  #closed = false;
  #composed: { own: State; registry: State; state: State } | null = null;

  private constructor(host: ToolledgerHost, writer: StreamWriter, options: ConversationOptions) {
    this.host = host;
    this.#writer = writer;
    this.id = writer.streamId;
    const record = options.recordPayloads ?? false;
    this.#payloads = record === false ? null : record === true ? {} : record;
    this.#authorizeEnable = options.authorizeEnable;
    this.events$ = writer.events$;
    this.state$ = combineLatest([writer.state$, host.state$]).pipe(
      map(([own, registry]) => this.#compose(own, registry)),
    );
    this.errors$ = this.#errors.asObservable();
    const every = options.followIntervalMs ?? 250;
    if (every > 0) {
      this.#follow = setInterval(() => {
        this.#following ??= this.catchUp()
          .catch((error: unknown) => this.#errors.next(asAdapterError(error)))
          .finally(() => {
            this.#following = null;
          });
      }, every);
      this.#follow.unref();
    }
  }

  /**
   * Opens a conversation on `host`: starts a new stream (ConversationStarted with its client,
   * then its deferral config), or resumes an existing one (ConversationResumed).
   */
  static async open(
    host: ToolledgerHost,
    options: ConversationOptions = {},
  ): Promise<Conversation> {
    const now = host.options.now;
    const id = options.id ?? newConversationId(now());
    const loaded = await StreamWriter.load(host.store, id, initialState(host.options.state));
    if (loaded.version > 0 && loaded.events[0]?.type !== "ConversationStarted") {
      throw new AdapterError(
        "COMMAND_REJECTED",
        `stream ${id} is not a conversation (it starts with ${loaded.events[0]?.type}; a session written before conversations existed can be replayed, not resumed); start a new conversation`,
      );
    }
    let conversation: Conversation | undefined;
    const writer = new StreamWriter(host.store, id, loaded.state, loaded.version, {
      now,
      // The composed state is cached: a command is decided against what `state$` just emitted.
      view: (own) =>
        conversation ? conversation.#compose(own, host.state) : withRegistry(own, host.state),
      redactor: () => host.redactor,
    });
    conversation = new Conversation(host, writer, options);
    const opening = {
      registryStream: host.streamId,
      client: options.client ?? null,
      protocolVersion: options.protocolVersion ?? null,
      transport: options.transport ?? null,
      hostname: host.hostname,
    };
    await writer.execute(() => ({
      type: loaded.version === 0 ? "StartConversation" : "ResumeConversation",
      ...opening,
    }));
    if (options.deferral) {
      await conversation.configureDeferral(options.deferral.mode, [
        ...(options.deferral.alwaysLoad ?? []),
      ]);
    }
    return conversation;
  }

  /** The state the model sees now (the latest value of `state$`). */
  get state(): State {
    return this.#compose(this.#writer.state, this.host.state);
  }

  /** The conversation stream's version (its last position). */
  get version(): number {
    return this.#writer.version;
  }

  get closed(): boolean {
    return this.#closed;
  }

  // ---- queries ------------------------------------------------------------------------

  /** R12: the registry's tools (visible ones unless `includeHidden`). */
  listTools(options: ListToolsOptions = {}): RegisteredTool[] {
    return listTools(this.state, options);
  }

  /** D4: what the model sees now. */
  modelView(): ModelView {
    return modelView(this.state);
  }

  /** E3: the registry's diagnostics and this conversation's (anomalies, unknown always-load names). */
  diagnostics(): Diagnostic[] {
    return diagnostics(this.state);
  }

  // ---- deferral -----------------------------------------------------------------------

  /** D1: switches deferred loading on or off for this conversation. */
  async configureDeferral(mode: DeferralMode, alwaysLoad: string[] = []): Promise<void> {
    await this.#writer.execute(() => ({ type: "ConfigureDeferral", mode, alwaysLoad }));
  }

  /** D5/D6: validates and records an enable request and its response; the response is the outcome. */
  async enableTools(callId: string, names: string[]): Promise<EnableToolsOutcome> {
    await this.host.untilStartedFor(names, this.host.options.callTimeoutMs);
    let events: ToolledgerEvent[];
    try {
      events = await this.#writer.execute(() => ({ type: "EnableTools", callId, names }));
    } catch (error) {
      const e = asAdapterError(error);
      if (e.code !== "COMMAND_REJECTED") throw e;
      return { ok: false, error: { code: "DUPLICATE_CALL_ID", message: e.message, invalid: [] } };
    }
    return enableOutcome(
      events.find((e) => e.type === "EnableToolsResponded"),
      names,
    );
  }

  /**
   * D5, two steps, first: records the model's request and nothing else; answer it later with
   * `approveEnableTools` or `denyEnableTools`. A call id already used is refused (COMMAND_REJECTED).
   */
  async requestEnableTools(callId: string, names: string[]): Promise<void> {
    await this.#writer.execute(() => ({ type: "RequestEnableTools", callId, names }));
  }

  /** D5: approves a pending request, validated now, against the registry of this moment. */
  approveEnableTools(callId: string): Promise<EnableToolsOutcome> {
    return this.#answer({ type: "ApproveEnableTools", callId });
  }

  /** D5: denies a pending request: a failed response carrying `reason`. */
  denyEnableTools(callId: string, reason: string): Promise<EnableToolsOutcome> {
    return this.#answer({ type: "DenyEnableTools", callId, reason });
  }

  async #answer(
    command:
      | { type: "ApproveEnableTools"; callId: string }
      | {
          type: "DenyEnableTools";
          callId: string;
          reason: string;
        },
  ): Promise<EnableToolsOutcome> {
    const names = this.state.pending.find((p) => p.callId === command.callId)?.names ?? [];
    const events = await this.#writer.execute(() => command);
    return enableOutcome(events[0], names);
  }

  /** D5: the model's enable_tools call, through the host's permission layer when it has one. */
  async #enableForModel(callId: string, names: string[]): Promise<EnableToolsOutcome> {
    const authorize = this.#authorizeEnable;
    if (!authorize) return this.enableTools(callId, names);
    try {
      await this.requestEnableTools(callId, names);
    } catch (error) {
      const e = asAdapterError(error);
      if (e.code !== "COMMAND_REJECTED") throw e;
      return { ok: false, error: { code: "DUPLICATE_CALL_ID", message: e.message, invalid: [] } };
    }
    let decision: EnableDecision;
    try {
      decision = await authorize({ conversationId: this.id, callId, names: [...names] });
    } catch (error) {
      decision = {
        approve: false,
        reason: `the host's permission check failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    return decision.approve
      ? this.approveEnableTools(callId)
      : this.denyEnableTools(callId, decision.reason || "denied by the host");
  }

  /** D7: records a compaction. */
  async compact(): Promise<void> {
    await this.#writer.execute(() => ({ type: "Compact" }));
  }

  /** D8: the user's /clear. */
  async clear(): Promise<void> {
    await this.#writer.execute(() => ({ type: "Clear" }));
  }

  // ---- calls --------------------------------------------------------------------------

  /**
   * C4: calls a tool by its public name and records the call. The core resolves it (R13)
   * and refuses app-only, hidden, unknown and deferred-not-enabled tools (D9) as values;
   * `enable_tools` (deferral on) is answered here; anything else goes to the owner's server
   * with the raw name. Timeouts, cancellation and lost connections are recorded, then
   * thrown as AdapterError.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): Promise<CallToolOutcome> {
    this.#open();
    // A tool of a server that is still starting is waited for, not refused as unknown.
    if (name !== ENABLE_TOOLS_NAME && this.host.starting)
      await this.host.untilStartedFor([name], options.timeoutMs ?? this.host.options.callTimeoutMs);
    const callId = options.callId ?? randomUUID();
    const redactor = this.host.redactor;
    const started = await this.#writer.execute(() => ({
      type: "StartCall",
      callId,
      name,
      ...(this.#payloads ? { arguments: capturePayload(args, redactor, this.#payloads) } : {}),
      ...(options.includeHidden ? { includeHidden: true } : {}),
    }));
    const start = started[0];
    const refusal = started[1];
    if (start?.type !== "ToolCallStarted")
      throw new AdapterError("COMMAND_REJECTED", "the core recorded no call start");
    if (refusal?.type === "ToolCallFinished") {
      // The same deterministic check the core ran, for its close names.
      const check = checkCall(
        this.state,
        name,
        options.includeHidden ? { includeHidden: true } : {},
      );
      if (check.ok) {
        return {
          ok: false,
          error: {
            code: "UNKNOWN_TOOL",
            name,
            message: refusal.error ?? "refused",
            suggestions: [],
          },
        };
      }
      if (check.error.code !== "EXTENSION_UNAVAILABLE") return check;
      // Down, and why, from the log; what happens next, from the host (issue 10).
      const key = downExtension(this.state, name, options)?.key;
      const status = this.host.extensions().find((e) => e.key === key);
      return {
        ok: false,
        error: { ...check.error, message: `${check.error.message}. ${unavailableAdvice(status)}` },
      };
    }
    if (start.publicName === ENABLE_TOOLS_NAME && start.owner === null)
      return this.#callEnableTools(callId, args);
    const owner = start.owner!;
    const rawName = start.rawName!;
    const t0 = performance.now();
    let result: ToolCallResult;
    options.onStart?.(owner);
    try {
      result = await this.host.callUpstream(owner, rawName, args, {
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onprogress ? { onprogress: options.onprogress } : {}),
        ...(options.meta ? { meta: options.meta } : {}),
      });
    } catch (error) {
      const e = asAdapterError(error);
      const finished = this.#finish(
        callId,
        outcomeOf(e),
        performance.now() - t0,
        { error: redactor.redact(e.message) },
        options.recordFinishAfterAnswer,
      );
      if (!options.recordFinishAfterAnswer) await finished;
      throw e;
    }
    const finished = this.#finish(
      callId,
      result.isError ? "tool_error" : "ok",
      performance.now() - t0,
      {
        ...(result.isError ? { error: errorText(result, redactor) } : {}),
        ...(this.#payloads ? { result: capturePayload(result, redactor, this.#payloads) } : {}),
      },
      options.recordFinishAfterAnswer,
    );
    if (!options.recordFinishAfterAnswer) await finished;
    return { ok: true, publicName: start.publicName!, extension: owner, rawName, result };
  }

  async #callEnableTools(callId: string, args: Record<string, unknown>): Promise<CallToolOutcome> {
    const t0 = performance.now();
    const names = args.names;
    if (!Array.isArray(names) || !names.every((n) => typeof n === "string")) {
      const message = `${ENABLE_TOOLS_NAME} takes {"names": [exact tool names]}; got ${JSON.stringify(args)}`;
      await this.#finish(callId, "refused", performance.now() - t0, {
        reason: "INVALID_ARGUMENTS",
        error: this.host.redactor.redact(message),
      });
      return {
        ok: false,
        error: { code: "INVALID_ARGUMENTS", name: ENABLE_TOOLS_NAME, message, suggestions: [] },
      };
    }
    const outcome = await this.#enableForModel(callId, names);
    const text = outcome.ok
      ? `Enabled ${names.join(", ")}. Their definitions are loaded; call them by these names.`
      : outcome.error.message;
    const result: ToolCallResult = outcome.ok
      ? { content: [{ type: "text", text }], structuredContent: { enabled: names } }
      : {
          content: [{ type: "text", text }],
          isError: true,
          structuredContent: { error: outcome.error },
        };
    await this.#finish(
      callId,
      outcome.ok ? "ok" : "tool_error",
      performance.now() - t0,
      outcome.ok ? {} : { error: text },
    );
    return {
      ok: true,
      publicName: ENABLE_TOOLS_NAME,
      extension: "",
      rawName: ENABLE_TOOLS_NAME,
      result,
    };
  }

  /**
   * Records a call's end (queued at once; `afterIo`: appended after this turn's I/O); a failure
   * to record does not take the outcome from the caller: it goes to `errors$`.
   */
  async #finish(
    callId: string,
    outcome: CallOutcome,
    durationMs: number,
    extra: { reason?: string; error?: string; result?: unknown },
    afterIo = false,
  ): Promise<void> {
    try {
      await this.#writer.execute(
        () => ({
          type: "FinishCall",
          callId,
          outcome,
          durationMs: Math.round(durationMs * 1000) / 1000,
          ...extra,
        }),
        { afterIo },
      );
    } catch (error) {
      this.#errors.next(
        new AdapterError(
          "APPEND_REJECTED",
          `the outcome of call ${callId} (${outcome}) could not be recorded: ${asAdapterError(error).message}`,
        ),
      );
    }
  }

  // ---- lifecycle ----------------------------------------------------------------------

  /** C3: folds events another process appended to this conversation. Returns how many arrived. */
  async catchUp(): Promise<number> {
    if (this.#closed) return 0;
    const version = await this.host.store.streamVersion(this.id);
    if (version <= this.#writer.version) return 0;
    return this.#writer.catchUp();
  }

  /** C3: closes the conversation with a marker (its MCP session ended). */
  async close(reason: string): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#follow);
    await this.#following;
    try {
      await this.#writer.execute(() => ({ type: "CloseConversation", reason }));
    } finally {
      await this.#writer.finish();
      this.#errors.complete();
    }
  }

  #compose(own: State, registry: State): State {
    const c = this.#composed;
    if (c && c.own === own && c.registry === registry) return c.state;
    const state = withRegistry(own, registry);
    this.#composed = { own, registry, state };
    return state;
  }

  #open(): void {
    if (this.#closed)
      throw new AdapterError("SESSION_CLOSED", `conversation ${this.id} is closed; open a new one`);
  }
}

/** Opens a conversation on a host (see Conversation.open). */
export function openConversation(
  host: ToolledgerHost,
  options: ConversationOptions = {},
): Promise<Conversation> {
  return Conversation.open(host, options);
}

/** C4: the outcome class of a call that threw. */
function outcomeOf(e: AdapterError): CallOutcome {
  switch (e.code) {
    case "REQUEST_TIMEOUT":
      return "timeout";
    case "CANCELLED":
      return "cancelled";
    case "MESSAGE_TOO_LARGE":
      // The tool ran and answered; its answer was too large to pass on.
      return "tool_error";
    case "PROTOCOL_ERROR":
      // A JSON-RPC error from a live server is the tool's answer; anything else lost the call.
      return e.serverAnswered ? "tool_error" : "unavailable";
    default:
      return "unavailable";
  }
}

/** The text of an `isError` result, short and secret-free. */
function errorText(result: ToolCallResult, redactor: Redactor): string {
  const content = (result as { content?: unknown }).content;
  const text = Array.isArray(content)
    ? content
        .map((c) => (c && typeof c === "object" && "text" in c ? String(c.text) : ""))
        .filter((t) => t !== "")
        .join("\n")
    : "";
  return redactor.head(text || "the tool reported an error", 500);
}

/** What the model is told of an enable (D5): the names on success, else the recorded error. */
function enableOutcome(
  response: ToolledgerEvent | undefined,
  names: readonly string[],
): EnableToolsOutcome {
  if (response?.type !== "EnableToolsResponded")
    throw new AdapterError("COMMAND_REJECTED", "the core decided no enable_tools response");
  return response.ok
    ? { ok: true, names: [...names] }
    : {
        ok: false,
        error: response.error ?? { code: "FAILED", message: "enable_tools failed", invalid: [] },
      };
}
