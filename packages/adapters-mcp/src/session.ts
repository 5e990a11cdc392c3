import { randomUUID } from "node:crypto";
import {
  type Command,
  checkCall,
  type DeferralMode,
  type Diagnostic,
  decide,
  diagnostics,
  ENABLE_TOOLS_NAME,
  type EnableError,
  type EventStore,
  evolve,
  InMemoryEventStore,
  initialState,
  type ListToolsOptions,
  listTools,
  type ModelView,
  modelView,
  nameToKey,
  type RegisteredTool,
  type State,
  type StateOptions,
  staleExtensions,
  type ToolledgerEvent,
} from "@toolledger/core";
import { BehaviorSubject, type Observable, Subject, scan } from "rxjs";
import { AdapterError } from "./adapterError.js";
import { configFingerprint, type ExtensionConfig } from "./extensionConfig.js";
import { ExtensionConnection, type ToolCallResult } from "./extensionConnection.js";
import { fetchTools } from "./fetchTools.js";
import { Redactor } from "./redactor.js";

export interface SessionOptions {
  /** The event log. Default: a fresh in-memory store. */
  store?: EventStore;
  /** One stream per session. Default `session-<uuid>`; an existing stream is resumed. */
  streamId?: string;
  /** Timeout of each tools/list page and of liveness pings. Default 30 s. */
  requestTimeoutMs?: number;
  /** Default timeout of a tool call. Default 60 s. */
  callTimeoutMs?: number;
  /** Timeout of starting a server and its handshake. Default 30 s. */
  connectTimeoutMs?: number;
  /** Page limit per tools/list fetch. Default 100. */
  maxPages?: number;
  /** Quiet period that folds a burst of list_changed into one refetch. Default 25 ms. */
  refetchDebounceMs?: number;
  /** Stamps `at` on every event (E2: times come from the appender). */
  now?: () => Date;
  state?: StateOptions;
}

/** An event as the session appended it. */
export interface SessionEvent {
  streamId: string;
  /** 1-based position in the session's stream. */
  streamPosition: number;
  globalPosition: number;
  eventId: string;
  event: ToolledgerEvent;
}

export type ConnectionStatus = "connected" | "disconnected";

export interface ExtensionStatus {
  key: string;
  name: string;
  status: ConnectionStatus;
  /** Why it is disconnected (a crash, a hang, a failed start), or null. */
  reason: string | null;
}

export interface CallToolOptions {
  /** Overrides the session's call timeout. */
  timeoutMs?: number;
  /** Cancels the call; the server gets `notifications/cancelled`. */
  signal?: AbortSignal;
  /** R8: let hidden extensions' tools resolve (host-internal calls only). */
  includeHidden?: boolean;
  /** The call id recorded when the call is `enable_tools` (default: a fresh UUID). */
  callId?: string;
}

export type CallRefusalCode =
  | "UNKNOWN_TOOL"
  | "AMBIGUOUS_TOOL"
  | "APP_ONLY_TOOL"
  | "TOOL_NOT_ENABLED"
  | "INVALID_ARGUMENTS";

/** A tool call's outcome: a server result, or a refusal made before any server saw the call. */
export type CallToolOutcome =
  | { ok: true; publicName: string; extension: string; rawName: string; result: ToolCallResult }
  | {
      ok: false;
      error: { code: CallRefusalCode; name: string; message: string; suggestions: string[] };
    };

export type EnableToolsOutcome = { ok: true; names: string[] } | { ok: false; error: EnableError };

export interface AddResult {
  name: string;
  key: string;
  ok: boolean;
  /** START_FAILED with the command (or URL) and the stderr tail, when `ok` is false. */
  error?: AdapterError;
}

interface Entry {
  config: ExtensionConfig;
  connection: ExtensionConnection | null;
  reason: string | null;
}

/**
 * A host session: it owns one event stream, the live connections to the extensions' MCP
 * servers, and the state folded from the stream. Every change goes through the core's
 * decider and is appended with an exact expected version before it is folded.
 */
export class ToolledgerSession {
  readonly store: EventStore;
  readonly streamId: string;
  /** Every event this session appends, once it is stored. */
  readonly events$: Observable<SessionEvent>;
  /** The state: the reducer folded over the events with `scan`; replays the current value. */
  readonly state$: Observable<State>;
  /** Failures in background work (list_changed handling, refetches, crash reports). */
  readonly errors$: Observable<AdapterError>;

  readonly #events = new Subject<SessionEvent>();
  readonly #state: BehaviorSubject<State>;
  readonly #errors = new Subject<AdapterError>();
  readonly #entries = new Map<string, Entry>();
  readonly #options: Required<Omit<SessionOptions, "store" | "streamId" | "state">>;
  #streamVersion: number;
  #queue: Promise<unknown> = Promise.resolve();
  #refreshTimer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | null = null;
  #refreshAgain = false;
  #background = new Set<Promise<unknown>>();
  /** Every added config's secrets: redacted from every command before it becomes an event. */
  #redactor = Redactor.none;
  #closed = false;
  #finished = false;

  private constructor(
    store: EventStore,
    streamId: string,
    seed: State,
    streamVersion: number,
    options: SessionOptions,
  ) {
    this.store = store;
    this.streamId = streamId;
    this.#streamVersion = streamVersion;
    this.#options = {
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      callTimeoutMs: options.callTimeoutMs ?? 60_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      maxPages: options.maxPages ?? 100,
      refetchDebounceMs: options.refetchDebounceMs ?? 25,
      now: options.now ?? (() => new Date()),
    };
    this.#state = new BehaviorSubject(seed);
    this.#events
      .pipe(scan((state: State, e: SessionEvent) => evolve(state, e.event), seed))
      .subscribe(this.#state);
    this.events$ = this.#events.asObservable();
    this.state$ = this.#state.asObservable();
    this.errors$ = this.#errors.asObservable();
  }

  /** Opens a session on `store` (resuming `streamId` when it already holds events). */
  static async open(options: SessionOptions = {}): Promise<ToolledgerSession> {
    const store = options.store ?? new InMemoryEventStore();
    const streamId = options.streamId ?? `session-${randomUUID()}`;
    let state = initialState(options.state);
    let version = 0;
    for (;;) {
      const batch = await store.readStream(streamId, { fromPosition: version + 1, maxCount: 1000 });
      for (const stored of batch) state = evolve(state, stored.event);
      version += batch.length;
      if (batch.length < 1000) break;
    }
    return new ToolledgerSession(store, streamId, state, version, options);
  }

  /** The current state (the latest value of `state$`). */
  get state(): State {
    return this.#state.value;
  }

  // ---- extensions ---------------------------------------------------------------------

  /**
   * Connects one extension: appends ExtensionAdded (R6), starts or reaches its server and
   * fetches until no connected extension is stale. A server that does not start is
   * recorded (ToolsFetchFailed, so it shows in the diagnostics), stays reconnectable, and
   * the START_FAILED error is thrown.
   */
  async addExtension(config: ExtensionConfig): Promise<void> {
    const [result] = await this.addExtensions([config]);
    if (result?.error) throw result.error;
  }

  /**
   * Connects several extensions: every ExtensionAdded first (the version is global, so
   * fetching in between would only go stale), then the connections in parallel, then one
   * fetch round. Failures to start are returned, not thrown.
   */
  async addExtensions(configs: readonly ExtensionConfig[]): Promise<AddResult[]> {
    this.#open();
    this.#redactor = this.#redactor.with(Redactor.forConfigs(configs));
    const keys: (string | null)[] = [];
    for (const config of configs) {
      const key = nameToKey(config.name);
      const previous = this.#entries.get(key);
      const events = await this.#execute(() => ({
        type: "AddExtension",
        name: config.name,
        kind: config.kind ?? config.type,
        exposeUnprefixed: config.exposeUnprefixed ?? false,
        hidden: config.hidden ?? false,
        availableTools: config.availableTools ?? [],
        configFingerprint: configFingerprint(config),
      }));
      // R6: an identical config that is already connected is a no-op.
      if (events.length === 0 && previous && this.#live(key)) {
        keys.push(null);
        continue;
      }
      if (previous) await this.#retire(previous);
      this.#entries.set(key, { config, connection: null, reason: "connecting" });
      keys.push(key);
    }
    const results = await Promise.all(
      configs.map(async (config, i): Promise<AddResult> => {
        const key = keys[i] ?? null;
        if (key === null) return { name: config.name, key: nameToKey(config.name), ok: true };
        try {
          await this.#connect(key);
          return { name: config.name, key, ok: true };
        } catch (error) {
          return { name: config.name, key, ok: false, error: asAdapterError(error) };
        }
      }),
    );
    // A resumed log may hold a fetch at the current version from an earlier run: fetch the
    // new connections regardless, then whatever is stale.
    const stale = new Set(staleExtensions(this.state));
    await Promise.all(
      results
        .filter((r, i) => r.ok && keys[i] !== null && !stale.has(r.key))
        .map((r) => this.#fetchOne(r.key)),
    );
    await this.refresh();
    return results;
  }

  /** R7: disconnects the extension and removes it and its tools. */
  async removeExtension(name: string): Promise<void> {
    this.#open();
    const key = nameToKey(name);
    const entry = this.#entries.get(key);
    this.#entries.delete(key);
    if (entry) await this.#retire(entry);
    await this.#execute(() => ({ type: "RemoveExtension", extension: key }));
    await this.refresh();
  }

  /** Connects a crashed, hung or failed extension again and fetches its tools. */
  async reconnect(name: string): Promise<void> {
    this.#open();
    const key = nameToKey(name);
    const entry = this.#entries.get(key);
    if (!entry) {
      throw new AdapterError(
        "COMMAND_REJECTED",
        `no extension ${JSON.stringify(name)} in this session; known: ${[...this.#entries.keys()].join(", ") || "none"}`,
      );
    }
    await this.#retire(entry);
    await this.#connect(key);
    // Its latest fetch may be at the current version (a recorded crash), so fetch regardless.
    await this.#fetchOne(key);
    await this.refresh();
  }

  /** Connection status of every extension this session connected. */
  extensions(): ExtensionStatus[] {
    return [...this.#entries].map(([key, e]) => ({
      key,
      name: e.config.name,
      status: e.connection && !e.connection.closed ? "connected" : "disconnected",
      reason: e.connection && !e.connection.closed ? null : e.reason,
    }));
  }

  // ---- fetching -----------------------------------------------------------------------

  /**
   * R11: fetches every stale connected extension, again and again while fetches went stale
   * (a list change raced them), up to a bound so a server that changes on every list cannot
   * spin the host. Concurrent callers share one run.
   */
  refresh(): Promise<void> {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return this.#refreshing;
    }
    const run = (async () => {
      try {
        for (let round = 0; round < 10; round++) {
          this.#refreshAgain = false;
          const stale = staleExtensions(this.state).filter((key) => this.#live(key));
          if (stale.length === 0 && !this.#refreshAgain) break;
          await Promise.all(stale.map((key) => this.#fetchOne(key)));
        }
      } finally {
        this.#refreshing = null;
      }
    })();
    this.#refreshing = run;
    return run;
  }

  /** Resolves once pending list_changed work and refetches are done. */
  async settled(): Promise<void> {
    while (this.#refreshTimer !== undefined || this.#refreshing || this.#background.size > 0) {
      if (this.#refreshTimer !== undefined)
        await new Promise((r) => setTimeout(r, this.#options.refetchDebounceMs));
      await Promise.allSettled([this.#refreshing, ...this.#background]);
    }
  }

  async #fetchOne(key: string): Promise<void> {
    const entry = this.#entries.get(key);
    const connection = entry?.connection;
    if (!connection || connection.closed) return;
    const startedAtVersion = this.state.version;
    let command: Command;
    try {
      const { tools } = await fetchTools(connection, {
        requestTimeoutMs: this.#options.requestTimeoutMs,
        maxPages: this.#options.maxPages,
      });
      command = { type: "RecordFetch", extension: key, startedAtVersion, tools };
    } catch (error) {
      const e = asAdapterError(error);
      if (e.code === "SESSION_CLOSED") return;
      command = { type: "RecordFetchFailure", extension: key, startedAtVersion, error: e.message };
    }
    // The extension may have been removed or replaced while the fetch ran.
    if (this.#entries.get(key)?.connection !== connection) return;
    await this.#execute(() => command);
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

  /** E3: collisions, failed fetches (crashes, hangs, guards), rejected tools, stale fetches, anomalies. */
  diagnostics(): Diagnostic[] {
    return diagnostics(this.state);
  }

  // ---- conversation -------------------------------------------------------------------

  /** D1: switches deferred loading on or off. */
  async configureDeferral(mode: DeferralMode, alwaysLoad: string[] = []): Promise<void> {
    await this.#execute(() => ({ type: "ConfigureDeferral", mode, alwaysLoad }));
  }

  /** D5/D6: validates and records an enable request and its response; the response is the outcome. */
  async enableTools(callId: string, names: string[]): Promise<EnableToolsOutcome> {
    let events: ToolledgerEvent[];
    try {
      events = await this.#execute(() => ({ type: "EnableTools", callId, names }));
    } catch (error) {
      const e = asAdapterError(error);
      if (e.code !== "COMMAND_REJECTED") throw e;
      return { ok: false, error: { code: "DUPLICATE_CALL_ID", message: e.message, invalid: [] } };
    }
    const response = events.find((e) => e.type === "EnableToolsResponded");
    if (response?.type !== "EnableToolsResponded")
      throw new AdapterError("COMMAND_REJECTED", "the core decided no enable_tools response");
    return response.ok
      ? { ok: true, names: [...names] }
      : {
          ok: false,
          error: response.error ?? { code: "FAILED", message: "enable_tools failed", invalid: [] },
        };
  }

  /** D7: records a compaction. */
  async compact(): Promise<void> {
    await this.#execute(() => ({ type: "Compact" }));
  }

  /** D8: the user's /clear. */
  async clear(): Promise<void> {
    await this.#execute(() => ({ type: "Clear" }));
  }

  /**
   * Calls a tool by its public name: resolves the owner (R13), refuses app-only tools and
   * deferred tools that are not enabled (D9) as values, and calls the owner's server with
   * the raw name. `enable_tools` (deferral on) is answered here. Timeouts, cancellation and
   * lost connections throw AdapterError; a call that times out triggers a liveness ping, and
   * a server that misses it too is recorded as hung and disconnected.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): Promise<CallToolOutcome> {
    this.#open();
    const state = this.state;
    if (name === ENABLE_TOOLS_NAME && state.deferral.mode === "lookup")
      return this.#callEnableTools(args, options);
    const check = checkCall(state, name, options.includeHidden ? { includeHidden: true } : {});
    if (!check.ok) return check;
    const connection = this.#entries.get(check.extension)?.connection;
    if (!connection || connection.closed) {
      const reason = this.#entries.get(check.extension)?.reason;
      throw new AdapterError(
        "EXTENSION_UNAVAILABLE",
        `tool ${check.publicName} belongs to extension ${JSON.stringify(check.extension)}, which is not connected${reason ? ` (${reason})` : ""}; reconnect it`,
      );
    }
    const timeoutMs = options.timeoutMs ?? this.#options.callTimeoutMs;
    try {
      const result = await connection.callTool(check.rawName, args, {
        timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return {
        ok: true,
        publicName: check.publicName,
        extension: check.extension,
        rawName: check.rawName,
        result,
      };
    } catch (error) {
      const e = asAdapterError(error);
      if (e.code === "REQUEST_TIMEOUT" || (e.code === "PROTOCOL_ERROR" && !e.serverAnswered)) {
        this.#track(this.#probe(connection, e));
      }
      throw e;
    }
  }

  async #callEnableTools(
    args: Record<string, unknown>,
    options: CallToolOptions,
  ): Promise<CallToolOutcome> {
    const names = args.names;
    if (!Array.isArray(names) || !names.every((n) => typeof n === "string")) {
      return {
        ok: false,
        error: {
          code: "INVALID_ARGUMENTS",
          name: ENABLE_TOOLS_NAME,
          message: `${ENABLE_TOOLS_NAME} takes {"names": [exact tool names]}; got ${JSON.stringify(args)}`,
          suggestions: [],
        },
      };
    }
    const outcome = await this.enableTools(options.callId ?? randomUUID(), names);
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
    return {
      ok: true,
      publicName: ENABLE_TOOLS_NAME,
      extension: "",
      rawName: ENABLE_TOOLS_NAME,
      result,
    };
  }

  /**
   * After a call that timed out or failed in transport: a server that cannot answer a
   * ping either is hung or gone (an HTTP server reports no close); record and drop it.
   */
  async #probe(connection: ExtensionConnection, cause: AdapterError): Promise<void> {
    try {
      await connection.ping(this.#options.requestTimeoutMs);
    } catch (error) {
      // A stdio server that exited is reported by the loss handler.
      if (connection.closed) return;
      const e = asAdapterError(error);
      const reason =
        e.code === "REQUEST_TIMEOUT"
          ? `the server stopped responding (${cause.message}; then a ping got no answer within ${this.#options.requestTimeoutMs} ms); it was stopped, reconnect it`
          : `the server is unreachable (${cause.message}; then the ping failed: ${e.message}); reconnect it`;
      await connection.abandon(reason);
    }
  }

  // ---- lifecycle ----------------------------------------------------------------------

  /** Disconnects every extension. The store stays open (it belongs to the caller). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#refreshTimer);
    this.#refreshTimer = undefined;
    await Promise.allSettled([...this.#entries.values()].map((e) => this.#retire(e)));
    await Promise.allSettled([this.#refreshing, ...this.#background, this.#queue]);
    this.#finished = true;
    this.#events.complete();
    this.#errors.complete();
  }

  // ---- internals ----------------------------------------------------------------------

  async #connect(key: string): Promise<void> {
    const entry = this.#entries.get(key);
    if (!entry)
      throw new AdapterError("COMMAND_REJECTED", `extension ${key} is not in this session`);
    let connection: ExtensionConnection;
    try {
      connection = await ExtensionConnection.connect(entry.config, {
        connectTimeoutMs: this.#options.connectTimeoutMs,
        redactor: this.#redactor,
        onListChanged: () => this.#onListChanged(key, connection),
        onLost: (reason) => this.#onLost(key, connection, reason),
      });
    } catch (error) {
      const e = asAdapterError(error);
      entry.reason = e.message;
      await this.#execute((state) => ({
        type: "RecordFetchFailure",
        extension: key,
        startedAtVersion: state.version,
        error: e.message,
      }));
      throw e;
    }
    if (this.#closed || this.#entries.get(key) !== entry) {
      await connection.close();
      return;
    }
    entry.connection = connection;
    entry.reason = null;
  }

  /** Closes an entry's connection on purpose (not reported as a loss). */
  async #retire(entry: Entry): Promise<void> {
    const connection = entry.connection;
    entry.connection = null;
    entry.reason = "disconnected by the host";
    if (connection) await connection.close();
  }

  #live(key: string): boolean {
    const c = this.#entries.get(key)?.connection;
    return c !== null && c !== undefined && !c.closed;
  }

  /** R11: a list change invalidates the cache now; the refetch waits for the burst to end. */
  #onListChanged(key: string, connection: ExtensionConnection): void {
    if (this.#closed || this.#entries.get(key)?.connection !== connection) return;
    this.#track(this.#execute(() => ({ type: "InvalidateTools", extension: key })));
    clearTimeout(this.#refreshTimer);
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined;
      if (!this.#closed) this.#track(this.refresh());
    }, this.#options.refetchDebounceMs);
  }

  /** A crash or a hang: recorded as a failed fetch at the current version, so it shows in the diagnostics. */
  #onLost(key: string, connection: ExtensionConnection, reason: string): void {
    const entry = this.#entries.get(key);
    if (this.#closed || entry?.connection !== connection) return;
    entry.connection = null;
    entry.reason = reason;
    this.#track(
      this.#execute((state) => ({
        type: "RecordFetchFailure",
        extension: key,
        startedAtVersion: state.version,
        error: `extension ${JSON.stringify(entry.config.name)} is unavailable: ${reason}`,
      })),
    );
  }

  /** Background work: its failures go to `errors$`, and `settled()`/`close()` wait for it. */
  #track(work: Promise<unknown>): void {
    const tracked = work.then(
      () => undefined,
      (error: unknown) => {
        const e = asAdapterError(error);
        if (e.code !== "SESSION_CLOSED") this.#errors.next(e);
      },
    );
    this.#background.add(tracked);
    void tracked.finally(() => this.#background.delete(tracked));
  }

  /**
   * Decides a command against the state at the moment it runs (appends are serialised),
   * appends the events with the exact expected version, then folds them.
   */
  #execute(make: (state: State) => Command): Promise<ToolledgerEvent[]> {
    const run = async (): Promise<ToolledgerEvent[]> => {
      // Servers' text (errors, stderr, tool lists) reaches commands: no secret enters an event.
      const command = this.#redactor.redactValue({
        ...make(this.state),
        at: this.#options.now().toISOString(),
      } as Command);
      const decision = decide(this.state, command);
      if (!decision.ok)
        throw new AdapterError(
          "COMMAND_REJECTED",
          `${decision.error.code}: ${decision.error.message}`,
        );
      if (decision.events.length === 0) return [];
      const batch = decision.events.map((event) => ({ eventId: randomUUID(), event }));
      const result = await this.store.append(this.streamId, batch, this.#streamVersion);
      if (!result.ok) {
        const detail =
          result.error.code === "VERSION_CONFLICT"
            ? `stream ${this.streamId} is at version ${result.error.actual}, expected ${this.#streamVersion}: another writer appended to it; open a new session on the stream`
            : result.error.message;
        throw new AdapterError(
          "APPEND_REJECTED",
          `the event store refused ${command.type}: ${result.error.code}: ${detail}`,
        );
      }
      const first = this.#streamVersion + 1;
      this.#streamVersion = result.nextExpectedVersion;
      batch.forEach(({ eventId, event }, i) => {
        this.#events.next({
          streamId: this.streamId,
          streamPosition: first + i,
          globalPosition: result.firstGlobalPosition + i,
          eventId,
          event,
        });
      });
      return decision.events;
    };
    const next = this.#queue.then(() => {
      if (this.#finished) throw new AdapterError("SESSION_CLOSED", "the session is closed");
      return run();
    });
    // The caller gets the failure through `next`; the queue only needs to move on.
    this.#queue = next.catch(() => undefined);
    return next;
  }

  #open(): void {
    if (this.#closed)
      throw new AdapterError("SESSION_CLOSED", "the session is closed; open a new one");
  }
}

/** Opens a session (see ToolledgerSession.open). */
export function openSession(options: SessionOptions = {}): Promise<ToolledgerSession> {
  return ToolledgerSession.open(options);
}

function asAdapterError(error: unknown): AdapterError {
  if (error instanceof AdapterError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new AdapterError("PROTOCOL_ERROR", message, { cause: error });
}
