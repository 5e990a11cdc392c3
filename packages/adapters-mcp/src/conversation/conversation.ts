import {
  type Command,
  type DeferralMode,
  type Diagnostic,
  diagnostics,
  initialState,
  type ListToolsOptions,
  listTools,
  type ModelView,
  modelView,
  type RegisteredTool,
  type State,
  withRegistry,
} from "@toolledger/core";
import { combineLatest, map, type Observable, Subject } from "rxjs";
import { AdapterError } from "../adapterError.js";
import type { ToolledgerHost } from "../host/toolledgerHost.js";
import { type StreamEvent, StreamWriter } from "../ledger/streamWriter.js";
import { callTool } from "./callTool.js";
import type { CallToolOptions, CallToolOutcome } from "./callToolTypes.js";
import type { ConversationOptions } from "./conversationOptions.js";
import type { ConversationParts } from "./conversationParts.js";
import {
  answerEnableTools,
  commandRejected,
  type EnableToolsOutcome,
  enableTools,
  requestEnableTools,
} from "./enableTools.js";
import { followConversation } from "./followConversation.js";
import { newConversationId } from "./newConversationId.js";
import { writeBehindNotice } from "./writeBehindNotice.js";

/**
 * A conversation (C1–C5) on a host: it owns its stream (deferral, enables, compaction,
 * clear, calls, its client) and reads the host's registry, composing the two into the state
 * its model sees. It follows its own stream, so `Cleared` / `Compacted` appended by another
 * process reach it (C3). Its operations live beside it: the enable flows (`enableTools.ts`),
 * the call pipeline (`callTool.ts`, `callEnableTools.ts`, `recordFinish.ts`).
 */
export class Conversation {
  readonly id: string;
  readonly host: ToolledgerHost;
  /** Every event of this conversation's stream, as it is stored or arrives from elsewhere. */
  readonly events$: Observable<StreamEvent>;
  /** What the model sees: the conversation composed with the host's registry. */
  readonly state$: Observable<State>;
  /**
   * Failures that no caller can carry: call events the store refused (held, or lost), a
   * failed look for events another process appended.
   */
  readonly errors$: Observable<AdapterError>;
  /** What a user should hear that is no failure: held call events stored once the store is back. */
  readonly notices$: Observable<string>;

  readonly #writer: StreamWriter;
  readonly #errors = new Subject<AdapterError>();
  readonly #notices = new Subject<string>();
  readonly #parts: ConversationParts;
  readonly #stopFollowing: () => Promise<void>;
  #closed = false;
  #composed: { own: State; registry: State; state: State } | null = null;

  private constructor(host: ToolledgerHost, writer: StreamWriter, options: ConversationOptions) {
    this.host = host;
    this.#writer = writer;
    this.id = writer.streamId;
    const record = options.recordPayloads ?? false;
    this.#parts = {
      id: this.id,
      host,
      writer,
      durability: options.callDurability ?? "write-ahead",
      payloads: record === false ? null : record === true ? {} : record,
      authorizeEnable: options.authorizeEnable,
      errors: this.#errors,
      running: { ids: new Set(), onIdle: null },
      state: () => this.state,
    };
    this.events$ = writer.events$;
    this.state$ = combineLatest([writer.state$, host.state$]).pipe(
      map(([own, registry]) => this.#compose(own, registry)),
    );
    this.errors$ = this.#errors.asObservable();
    this.notices$ = this.#notices.asObservable();
    this.#stopFollowing = followConversation(
      this.id,
      options.followIntervalMs ?? 250,
      () => this.catchUp(),
      (error) => this.#errors.next(error),
    );
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
      // L2: decided against the registry, recorded with none of its appends in between.
      gate: "shared",
      follows: () => host.version,
      writeBehind: {
        ...options.writeBehind,
        onReport: (report) => {
          if (!conversation) return;
          const told = writeBehindNotice(id, report, writer.maxHeld);
          if ("error" in told) conversation.#errors.next(told.error);
          else conversation.#notices.next(told.notice);
        },
      },
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
      await conversation.configureDeferral(
        options.deferral.mode,
        [...(options.deferral.alwaysLoad ?? [])],
        options.deferral.budget,
      );
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

  /** C4: call events written behind and not stored yet (in their group window, or held while the store refuses them). */
  get pendingEvents(): number {
    return this.#writer.behind;
  }

  /** C4: resolves once every call event written behind so far is stored; throws the store's failure (they stay held). */
  flush(): Promise<void> {
    return this.#writer.flush();
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

  /** D1/S1: sets this conversation's deferred loading (`budget`: `auto`'s names-token budget). */
  async configureDeferral(
    mode: DeferralMode,
    alwaysLoad: string[] = [],
    budget?: number,
  ): Promise<void> {
    await this.#writer.execute(() => ({
      type: "ConfigureDeferral",
      mode,
      alwaysLoad,
      ...(budget === undefined ? {} : { budget }),
    }));
  }

  /** D5/D6: validates and records an enable request and its response; the response is the outcome. */
  enableTools(callId: string, names: string[]): Promise<EnableToolsOutcome> {
    return enableTools(this.#parts, callId, names);
  }

  /**
   * D5, two steps, first: records the model's request and nothing else; answer it later with
   * `approveEnableTools` or `denyEnableTools`. A call id already used is refused (COMMAND_REJECTED).
   */
  async requestEnableTools(callId: string, names: string[]): Promise<void> {
    const decision = await requestEnableTools(this.#parts, callId, names);
    if (!decision.ok) throw commandRejected(decision.error);
  }

  /** D5: approves a pending request, validated now, against the registry of this moment. */
  approveEnableTools(callId: string): Promise<EnableToolsOutcome> {
    return answerEnableTools(this.#parts, { type: "ApproveEnableTools", callId });
  }

  /** D5: denies a pending request: a failed response carrying `reason`. */
  denyEnableTools(callId: string, reason: string): Promise<EnableToolsOutcome> {
    return answerEnableTools(this.#parts, { type: "DenyEnableTools", callId, reason });
  }

  /** C6: records a task of one of this conversation's calls: its creation or a new status. */
  async recordTask(
    command:
      | Extract<Command, { type: "CreateTask" }>
      | Extract<Command, { type: "ChangeTaskStatus" }>,
  ): Promise<void> {
    this.#open();
    await this.#writer.execute(() => command);
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
    return callTool(this.#parts, name, args, options);
  }

  // ---- lifecycle ----------------------------------------------------------------------

  /** C3: folds events another process appended to this conversation. Returns how many arrived. */
  async catchUp(): Promise<number> {
    if (this.#closed) return 0;
    const version = await this.host.store.streamVersion(this.id);
    if (version <= this.#writer.version) return 0;
    return this.#writer.catchUp();
  }

  /**
   * C3: closes the conversation with a marker (its MCP session ended). Calls still running
   * get up to `writeBehind.closeWaitMs` to record their outcome first (C4); one still running
   * then is reported on `errors$`, since its outcome can no longer be recorded.
   */
  async close(reason: string): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#stopFollowing();
    await this.#waitForRunningCalls();
    try {
      await this.#writer.execute(() => ({ type: "CloseConversation", reason }));
    } finally {
      await this.#writer.finish();
      this.#errors.complete();
      this.#notices.complete();
    }
  }

  async #waitForRunningCalls(): Promise<void> {
    const running = this.#parts.running;
    if (running.ids.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      running.onIdle = resolve;
      timer = setTimeout(resolve, this.#writer.closeWaitMs);
    });
    running.onIdle = null;
    clearTimeout(timer);
    if (running.ids.size === 0) return;
    this.#errors.next(
      new AdapterError(
        "SESSION_CLOSED",
        `conversation ${this.id} closed with ${running.ids.size} call(s) still running after ${this.#writer.closeWaitMs} ms (${[...running.ids].join(", ")}): their outcomes are not recorded (C4)`,
      ),
    );
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
