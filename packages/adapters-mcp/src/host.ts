import { randomUUID } from "node:crypto";
import { hostname as machineName } from "node:os";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import {
  type Command,
  type Diagnostic,
  diagnostics,
  type EventStore,
  getExtension,
  InMemoryEventStore,
  initialState,
  type ListToolsOptions,
  listTools,
  nameToKey,
  type PinPolicy,
  REGISTRY_EVENT_TYPES,
  type RegisteredTool,
  resolveTool,
  type State,
  type StateOptions,
  staleExtensions,
  type ToolledgerEvent,
} from "@toolledger/core";
import type { Observable } from "rxjs";
import { Subject } from "rxjs";
import { AdapterError, asAdapterError } from "./adapterError.js";
import { configFingerprint, type ExtensionConfig } from "./extensionConfig.js";
import {
  ExtensionConnection,
  type RequestLimits,
  type ToolCallResult,
  type UpstreamMessage,
} from "./extensionConnection.js";
import { fetchPrompts, fetchResources } from "./fetchCatalog.js";
import { fetchTools } from "./fetchTools.js";
import { PinKeeper } from "./pinKeeper.js";
import { Redactor } from "./redactor.js";
import { type SessionEvent, StreamWriter } from "./streamWriter.js";

export interface HostOptions {
  /** The event log. Default: a fresh in-memory store. */
  store?: EventStore;
  /** The registry stream. Default `host-<time>-<random>`; an existing registry stream is resumed. */
  registryStreamId?: string;
  /** Recorded in HostStarted (C1). Default: this machine's host name. */
  hostname?: string;
  /** Recorded in HostStarted. */
  toolledgerVersion?: string;
  /** Timeout of each tools/list page and of liveness pings. Default 30 s. */
  requestTimeoutMs?: number;
  /** Default timeout of a tool call. Default 60 s. */
  callTimeoutMs?: number;
  /** Timeout of starting a server and its handshake. Default 30 s. */
  connectTimeoutMs?: number;
  /** Page limit per tools/list fetch. Default 100. */
  maxPages?: number;
  /** Largest message read from a stdio server; a larger reply fails its request as MESSAGE_TOO_LARGE. Default 64 MiB. */
  maxMessageBytes?: number;
  /** Quiet period that folds a burst of list_changed into one refetch. Default 25 ms. */
  refetchDebounceMs?: number;
  /**
   * Restarts a server that failed to start, crashed, hung or could not list its tools, with
   * exponential backoff, a bounded number of times (each failure is a ToolsFetchFailed saying
   * which attempt it was and when the next one is). Default: no restarts (`reconnect` does it).
   */
  retry?: RetryPolicy;
  /** Stamps `at` on every event (E2: times come from the appender). */
  now?: () => Date;
  state?: StateOptions;
  /**
   * R14: characters the host's own client puts in front of every tool name it is served
   * (`mcp__toolledger__` is 17); wire names stay within 64 minus this. Default 0.
   */
  outerPrefixBudget?: number;
  /**
   * P5: the pinning policy of servers whose config sets none (`ExtensionConfig.pinning`).
   * Absent, and no config sets one: nothing is pinned (`toolledger serve` quarantines).
   */
  pinning?: PinPolicy;
  /** P4: how often to look for pinning decisions other processes appended (ms). Default 250. */
  pinsFollowIntervalMs?: number;
}

export interface RetryPolicy {
  /** Attempts in a row before giving up (the first start included). */
  attempts: number;
  /** Wait before the second attempt; doubled for each further one. */
  initialDelayMs: number;
  /** The longest wait between two attempts. */
  maxDelayMs: number;
  /** A server that stayed up this long starts counting its attempts afresh. Default 60 s. */
  stableMs?: number;
}

/** A reasonable policy for a long-running gateway: 6 attempts over about a minute. */
export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 6,
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  stableMs: 60_000,
};

/**
 * Where an extension is in its life: starting (process and handshake), listing (tools/list in
 * flight), ready, retrying (waiting for the next attempt), failed (no attempt left: reconnect
 * it) or stopped (disconnected by the host).
 */
export type ExtensionPhase = "starting" | "listing" | "ready" | "retrying" | "failed" | "stopped";

export type ConnectionStatus = "connected" | "disconnected";

export interface ExtensionStatus {
  key: string;
  name: string;
  status: ConnectionStatus;
  /** Why it is disconnected (a crash, a hang, a failed start) or failed (its tools could not be listed), or null. */
  reason: string | null;
  phase: ExtensionPhase;
  /** Attempts to start it since it was added or last stayed up (0 before the first). */
  attempts: number;
  /** When the next attempt starts (phase `retrying`), else null. */
  nextAttemptAt: string | null;
}

export interface AddResult {
  name: string;
  key: string;
  ok: boolean;
  /** START_FAILED with the command (or URL) and the stderr tail, when `ok` is false. */
  error?: AdapterError;
}

/** How a host reaches an extension's server for one call. */
export interface UpstreamCallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** G1: the server's progress reports; only with it is a progress token sent up. */
  onprogress?: RequestLimits["onprogress"];
  /** G1: the request's other `_meta` entries, passed up as sent. */
  meta?: Record<string, unknown>;
}

/** G1: a notification an extension's server sent, other than tools/list_changed. */
export interface UpstreamNotification extends UpstreamMessage {
  /** The extension's key. */
  extension: string;
}

/** G1: answers a request an extension's server sent (sampling, elicitation). */
export type UpstreamRequestHandler = (
  extension: string,
  request: UpstreamMessage,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

type CatalogList = "prompts" | "resources";

interface Entry {
  config: ExtensionConfig;
  connection: ExtensionConnection | null;
  reason: string | null;
  phase: ExtensionPhase;
  attempts: number;
  nextAttemptAt: Date | null;
  retryTimer: NodeJS.Timeout | undefined;
  connectedAt: number | null;
  /** Aborts the background attempt in progress (a retire while a server is still starting). */
  attempt: AbortController | null;
  /** Settles when the first attempt (of startExtensions) is over, whatever its outcome. */
  started: Promise<void> | null;
  /** Whether that first attempt is over. */
  startedDone: boolean;
}

/** A new registry stream id: sortable by start time, unique across hosts. */
export function newRegistryStreamId(now: Date = new Date()): string {
  return `host-${compactTime(now)}-${randomUUID().slice(0, 8)}`;
}

/** `20261130-162107`: a stream id's time part (UTC). */
export function compactTime(now: Date): string {
  const iso = now.toISOString();
  return `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}`;
}

/**
 * A host (C1): it owns the registry stream and the live connections to the extensions' MCP
 * servers, and folds the registry from its stream. Conversations are opened on it
 * (`openConversation` in conversation.ts) and read its registry; they never touch its
 * connections except through `callUpstream`.
 */
export class ToolledgerHost {
  readonly store: EventStore;
  /** The registry stream (C1). */
  readonly streamId: string;
  /** Every event this host appends to its registry stream, once it is stored. */
  readonly events$: Observable<SessionEvent>;
  /** The registry state, folded from the registry stream; replays the current value. */
  readonly state$: Observable<State>;
  /** Failures in background work (list_changed handling, refetches, crash reports). */
  readonly errors$: Observable<AdapterError>;
  /** Every change of an extension's phase (starting, listing, ready, retrying, failed, stopped). */
  readonly status$: Observable<ExtensionStatus>;
  /** G1: log messages, resource updates and other notifications from the extensions' servers. */
  readonly upstreamNotifications$: Observable<UpstreamNotification>;
  /** The machine's name as recorded in HostStarted. */
  readonly hostname: string;
  readonly options: Readonly<{
    requestTimeoutMs: number;
    callTimeoutMs: number;
    connectTimeoutMs: number;
    maxPages: number;
    maxMessageBytes: number | undefined;
    refetchDebounceMs: number;
    retry: RetryPolicy | null;
    now: () => Date;
    state: StateOptions;
    outerPrefixBudget: number;
    pinning: PinPolicy | undefined;
  }>;

  readonly #writer: StreamWriter;
  readonly #errors = new Subject<AdapterError>();
  readonly #status = new Subject<ExtensionStatus>();
  readonly #upstreamNotifications = new Subject<UpstreamNotification>();
  #upstreamRequestHandler: UpstreamRequestHandler | null = null;
  readonly #listTimers = new Map<string, NodeJS.Timeout>();
  readonly #entries = new Map<string, Entry>();
  #refreshTimer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | null = null;
  #refreshAgain = false;
  #background = new Set<Promise<unknown>>();
  /** P4: the pins ledger, once a server is pinned. */
  #pins: Promise<PinKeeper> | null = null;
  readonly #pinsFollowIntervalMs: number;
  /** Every added config's secrets (R6). */
  #redactor = Redactor.none;
  #closed = false;

  private constructor(writer: StreamWriter, options: HostOptions) {
    this.#writer = writer;
    this.store = writer.store;
    this.streamId = writer.streamId;
    this.hostname = options.hostname ?? machineName();
    this.options = {
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      callTimeoutMs: options.callTimeoutMs ?? 60_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      maxPages: options.maxPages ?? 100,
      maxMessageBytes: options.maxMessageBytes,
      refetchDebounceMs: options.refetchDebounceMs ?? 25,
      outerPrefixBudget: options.outerPrefixBudget ?? 0,
      retry: options.retry ?? null,
      now: options.now ?? (() => new Date()),
      state: options.state ?? {},
      pinning: options.pinning,
    };
    this.#pinsFollowIntervalMs = options.pinsFollowIntervalMs ?? 250;
    this.events$ = writer.events$;
    this.state$ = writer.state$;
    this.errors$ = this.#errors.asObservable();
    this.status$ = this.#status.asObservable();
    this.upstreamNotifications$ = this.#upstreamNotifications.asObservable();
  }

  /**
   * Opens a host on `store`: resumes `registryStreamId` when it already holds events (a
   * legacy single-stream session is refused: it holds a conversation too) and records the
   * run with HostStarted.
   */
  static async open(options: HostOptions = {}): Promise<ToolledgerHost> {
    const store = options.store ?? new InMemoryEventStore();
    const now = options.now ?? (() => new Date());
    const streamId = options.registryStreamId ?? newRegistryStreamId(now());
    const loaded = await StreamWriter.load(store, streamId, initialState(options.state));
    const foreign = loaded.events.find((e) => !isRegistryEvent(e));
    if (foreign) {
      throw new AdapterError(
        "COMMAND_REJECTED",
        `stream ${streamId} is not a registry stream (it holds ${foreign.type}); give a new or a host-… stream id`,
      );
    }
    let redactor = (): Redactor => Redactor.none;
    const writer = new StreamWriter(store, streamId, loaded.state, loaded.version, {
      now,
      redactor: () => redactor(),
    });
    const host = new ToolledgerHost(writer, options);
    redactor = () => host.redactor;
    await writer.execute(() => ({
      type: "StartHost",
      hostname: host.hostname,
      pid: process.pid,
      ...(options.toolledgerVersion ? { toolledgerVersion: options.toolledgerVersion } : {}),
    }));
    return host;
  }

  /** The registry state (the latest value of `state$`). */
  get state(): State {
    return this.#writer.state;
  }

  /** The registry stream's version (its last position). */
  get version(): number {
    return this.#writer.version;
  }

  /** True once `close` started. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Removes the secrets of every extension config this host was given (env and header
   * values and their parts, credential arguments, URL credentials) from text and values:
   * what its streams record, what its conversations capture of calls.
   */
  get redactor(): Redactor {
    return this.#redactor;
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
      const events = await this.#execute(() => addExtensionCommand(config));
      // R6: an identical config that is already connected is a no-op.
      if (events.length === 0 && previous && this.#live(key)) {
        keys.push(null);
        continue;
      }
      if (previous) await this.#retire(previous);
      this.#entries.set(key, newEntry(config));
      await this.#adoptPins(key, config);
      keys.push(key);
    }
    const results = await Promise.all(
      configs.map(async (config, i): Promise<AddResult> => {
        const key = keys[i] ?? null;
        if (key === null) return { name: config.name, key: nameToKey(config.name), ok: true };
        const entry = this.#entries.get(key);
        try {
          if (entry) entry.attempts++;
          await this.#connect(key, entry ? this.#retryNote(entry) : "");
          return { name: config.name, key, ok: true };
        } catch (error) {
          if (entry && this.#entries.get(key) === entry) this.#retryLater(key, entry);
          return { name: config.name, key, ok: false, error: asAdapterError(error) };
        }
      }),
    );
    // A resumed log may hold a fetch at the current version from an earlier run: fetch the
    // new connections regardless, then whatever is stale.
    const stale = new Set(staleExtensions(this.state));
    await Promise.all(
      results
        .filter((r, i) => r.ok && keys[i] !== null)
        .map((r) =>
          Promise.all([stale.has(r.key) ? null : this.#fetchOne(r.key), this.#fetchLists(r.key)]),
        ),
    );
    await this.refresh();
    for (const [i, r] of results.entries()) {
      const entry = this.#entries.get(r.key);
      if (!r.ok || keys[i] === null || !entry || !this.#live(r.key)) continue;
      const failed = getExtension(this.state, r.key)?.fetch.status === "failed";
      this.#setPhase(entry, r.key, failed ? "failed" : "ready");
    }
    return results;
  }

  /**
   * Adds extensions without waiting for their servers: every ExtensionAdded is appended,
   * then each server is started, listed and (with a `retry` policy) restarted on its own in
   * the background, so a host can serve at once with what is ready. A server that comes up
   * later joins the registry like any list change; `status$` and `extensions()` say where
   * each one is, and `whenStarted()` when every first attempt is over.
   */
  async startExtensions(configs: readonly ExtensionConfig[]): Promise<void> {
    this.#open();
    this.#redactor = this.#redactor.with(Redactor.forConfigs(configs));
    for (const config of configs) {
      const key = nameToKey(config.name);
      const previous = this.#entries.get(key);
      const events = await this.#execute(() => addExtensionCommand(config));
      if (events.length === 0 && previous && this.#live(key)) continue;
      if (previous) await this.#retire(previous);
      const entry = newEntry(config);
      this.#entries.set(key, entry);
      await this.#adoptPins(key, config);
      let done!: () => void;
      entry.startedDone = false;
      entry.started = new Promise<void>((resolve) => {
        done = () => {
          entry.startedDone = true;
          resolve();
        };
      });
      this.#track(this.#attempt(key, entry).finally(done));
    }
  }

  /** Resolves once every extension added with `startExtensions` is past its first attempt. */
  async whenStarted(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => e.started));
  }

  /** True while an extension added with `startExtensions` is in its first start. */
  get starting(): boolean {
    for (const e of this.#entries.values()) if (!e.startedDone) return true;
    return false;
  }

  /**
   * Waits, at most `ms`, until the extensions that could own `names` (by their prefix, R5,
   * or any unprefixed one) are past their first start: a call or an enable that names a tool
   * of a server still starting is answered once that server is up, not refused as unknown.
   * Names that resolve now cost nothing.
   */
  async untilStartedFor(names: readonly string[], ms: number): Promise<void> {
    if (!this.starting) return;
    const starting = [...this.#entries].filter(([, e]) => !e.startedDone);
    if (starting.length === 0) return;
    const waits = new Set<Promise<void> | null>();
    for (const name of names) {
      if (resolveTool(this.state, name, { includeHidden: true }).ok) continue;
      const prefix = nameToKey(name.replace(/^functions[.:]/, "").split(/__|\./)[0] ?? "");
      for (const [key, e] of starting)
        if (key === prefix || e.config.exposeUnprefixed) waits.add(e.started);
    }
    if (waits.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(waits),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
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
        `no extension ${JSON.stringify(name)} in this host; known: ${[...this.#entries.keys()].join(", ") || "none"}`,
      );
    }
    await this.#retire(entry);
    entry.attempts = 1;
    this.#setPhase(entry, key, "starting");
    try {
      await this.#connect(key);
    } catch (error) {
      this.#setPhase(entry, key, "failed");
      throw error;
    }
    // Its latest fetch may be at the current version (a recorded crash), so fetch regardless.
    await Promise.all([this.#fetchOne(key), this.#fetchLists(key)]);
    this.#setPhase(entry, key, this.#live(key) ? "ready" : "failed");
    await this.refresh();
  }

  /** Connection status of every extension this host connected. */
  extensions(): ExtensionStatus[] {
    return [...this.#entries].map(([key, e]) => statusOf(key, e));
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
      for (let round = 0; round < 10; round++) {
        this.#refreshAgain = false;
        const stale = staleExtensions(this.state).filter((key) => this.#live(key));
        if (stale.length === 0 && !this.#refreshAgain) break;
        await Promise.all(stale.map((key) => this.#fetchOne(key)));
      }
    })();
    this.#refreshing = run;
    // Cleared after it is set: a run with nothing to fetch ends before `run` is assigned, and
    // clearing it inside left a settled run in place that every later refresh returned.
    void run
      .finally(() => {
        if (this.#refreshing === run) this.#refreshing = null;
      })
      .catch(() => undefined);
    return run;
  }

  /** Resolves once pending list_changed work and refetches are done. */
  async settled(): Promise<void> {
    while (
      this.#refreshTimer !== undefined ||
      this.#listTimers.size > 0 ||
      this.#refreshing ||
      this.#background.size > 0
    ) {
      if (this.#refreshTimer !== undefined || this.#listTimers.size > 0)
        await new Promise((r) => setTimeout(r, this.options.refetchDebounceMs));
      await Promise.allSettled([this.#refreshing, ...this.#background]);
    }
  }

  /** Fetches one extension's tools and records the outcome; returns the failure, if any. */
  async #fetchOne(
    key: string,
    note: (e: AdapterError) => string = () => "",
  ): Promise<AdapterError | null> {
    const entry = this.#entries.get(key);
    const connection = entry?.connection;
    if (!connection || connection.closed) return null;
    const startedAtVersion = this.state.version;
    let command: Command;
    let failure: AdapterError | null = null;
    try {
      const fetched = await fetchTools(connection, {
        requestTimeoutMs: this.options.requestTimeoutMs,
        maxPages: this.options.maxPages,
      });
      command = {
        type: "RecordFetch",
        extension: key,
        startedAtVersion,
        tools: fetched.tools,
        // R9: a partial listing is recorded as such, with why it stopped.
        ...(fetched.complete ? {} : { complete: false, reason: fetched.reason ?? "partial" }),
        // R14: wire names leave room for the prefix the host's own client puts in front.
        ...(this.options.outerPrefixBudget > 0
          ? { outerPrefixBudget: this.options.outerPrefixBudget }
          : {}),
      };
    } catch (error) {
      const e = asAdapterError(error);
      if (e.code === "SESSION_CLOSED") return null;
      failure = e;
      command = {
        type: "RecordFetchFailure",
        extension: key,
        startedAtVersion,
        error: `${e.message}${note(e)}`,
      };
    }
    // The extension may have been removed or replaced while the fetch ran.
    if (this.#entries.get(key)?.connection !== connection) return null;
    // P2: decided against the pins ledger first, so no unapproved definition is ever served.
    if (command.type === "RecordFetch") await this.#pin(key, "tools", { tools: command.tools });
    await this.#execute(() => command);
    return failure;
  }

  /**
   * G1: fetches an extension's prompt and resource lists (those its server declared) until a
   * fetch is not overtaken by a list change, so the recorded list is the server's latest.
   */
  async #fetchLists(key: string, only?: CatalogList): Promise<void> {
    const connection = this.#entries.get(key)?.connection;
    if (!connection || connection.closed) return;
    const caps = connection.capabilities;
    const lists: CatalogList[] = [];
    if (caps.prompts && only !== "resources") lists.push("prompts");
    if (caps.resources && only !== "prompts") lists.push("resources");
    await Promise.all(lists.map((list) => this.#fetchList(key, connection, list)));
  }

  async #fetchList(key: string, connection: ExtensionConnection, list: CatalogList): Promise<void> {
    const limits = {
      requestTimeoutMs: this.options.requestTimeoutMs,
      maxPages: this.options.maxPages,
    };
    for (let round = 0; round < 10; round++) {
      const startedAtVersion = this.#listVersion(key, list);
      let command: Command;
      try {
        command =
          list === "prompts"
            ? {
                type: "RecordPrompts",
                extension: key,
                startedAtVersion,
                prompts: await fetchPrompts(connection, limits),
              }
            : {
                type: "RecordResources",
                extension: key,
                startedAtVersion,
                ...(await fetchResources(connection, limits)),
              };
      } catch (error) {
        const e = asAdapterError(error);
        if (e.code === "SESSION_CLOSED" || connection.closed) return;
        command =
          list === "prompts"
            ? {
                type: "RecordPrompts",
                extension: key,
                startedAtVersion,
                prompts: [],
                error: e.message,
              }
            : {
                type: "RecordResources",
                extension: key,
                startedAtVersion,
                resources: [],
                resourceTemplates: [],
                error: e.message,
              };
      }
      if (this.#entries.get(key)?.connection !== connection) return;
      if (command.type === "RecordPrompts" && command.error === undefined)
        await this.#pin(key, "prompts", { prompts: command.prompts });
      if (command.type === "RecordResources" && command.error === undefined)
        await this.#pin(key, "resources", {
          resources: command.resources,
          resourceTemplates: command.resourceTemplates,
        });
      await this.#execute(() => command);
      if (this.#listVersion(key, list) === startedAtVersion) return;
    }
  }

  #listVersion(key: string, list: CatalogList): number {
    const catalog = getExtension(this.state, key)?.catalog;
    return (
      (list === "prompts" ? catalog?.promptsList.version : catalog?.resourcesList.version) ?? 0
    );
  }

  /** G1: a prompt or resource list change invalidates that list now; the refetch waits for the burst to end. */
  #onCatalogChanged(key: string, connection: ExtensionConnection, list: CatalogList): void {
    if (this.#closed || this.#entries.get(key)?.connection !== connection) return;
    this.#track(
      this.#execute(() => ({
        type: list === "prompts" ? "InvalidatePrompts" : "InvalidateResources",
        extension: key,
      })),
    );
    const timerKey = `${list}\u0000${key}`;
    clearTimeout(this.#listTimers.get(timerKey));
    this.#listTimers.set(
      timerKey,
      setTimeout(() => {
        this.#listTimers.delete(timerKey);
        if (!this.#closed) this.#track(this.#fetchLists(key, list));
      }, this.options.refetchDebounceMs),
    );
  }

  /** G1: the live connection of an extension (name or key), for relaying requests to its server. */
  connection(nameOrKey: string): ExtensionConnection | undefined {
    const connection = this.#entries.get(nameToKey(nameOrKey))?.connection;
    return connection && !connection.closed ? connection : undefined;
  }

  /** G1: who answers sampling and elicitation requests from the servers (the gateway). */
  setUpstreamRequestHandler(handler: UpstreamRequestHandler | null): void {
    this.#upstreamRequestHandler = handler;
  }

  // ---- queries ------------------------------------------------------------------------

  /** R12: the registry's tools (visible ones unless `includeHidden`). */
  listTools(options: ListToolsOptions = {}): RegisteredTool[] {
    return listTools(this.state, options);
  }

  /** E3: collisions, failed fetches (crashes, hangs, guards), rejected tools, stale fetches. */
  diagnostics(): Diagnostic[] {
    return diagnostics(this.state);
  }

  // ---- calls --------------------------------------------------------------------------

  /**
   * Calls `rawName` on the server of extension `key` (resolution and refusals are the
   * conversation's). A missing or lost connection throws EXTENSION_UNAVAILABLE; timeouts,
   * cancellation and lost connections throw AdapterError. A call that times out or fails in
   * transport triggers a liveness ping, and a server that misses it too is recorded as hung
   * and disconnected.
   */
  async callUpstream(
    key: string,
    rawName: string,
    args: Record<string, unknown>,
    options: UpstreamCallOptions = {},
  ): Promise<ToolCallResult> {
    this.#open();
    const entry = this.#entries.get(key);
    const connection = entry?.connection;
    if (!connection || connection.closed) {
      throw new AdapterError(
        "EXTENSION_UNAVAILABLE",
        `extension ${JSON.stringify(key)} is not connected${entry?.reason ? ` (${entry.reason})` : ""}; reconnect it`,
      );
    }
    try {
      return await connection.callTool(
        rawName,
        args,
        {
          timeoutMs: options.timeoutMs ?? entry.config.callTimeoutMs ?? this.options.callTimeoutMs,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.onprogress ? { onprogress: options.onprogress } : {}),
        },
        options.meta,
      );
    } catch (error) {
      const e = asAdapterError(error);
      if (e.code === "REQUEST_TIMEOUT" || (e.code === "PROTOCOL_ERROR" && !e.serverAnswered)) {
        this.#track(this.#probe(connection, e));
      }
      throw e;
    }
  }

  /**
   * After a call that timed out or failed in transport: a server that cannot answer a
   * ping either is hung or gone (an HTTP server reports no close); record and drop it.
   */
  async #probe(connection: ExtensionConnection, cause: AdapterError): Promise<void> {
    try {
      await connection.ping(this.options.requestTimeoutMs);
    } catch (error) {
      // A stdio server that exited is reported by the loss handler.
      if (connection.closed) return;
      const e = asAdapterError(error);
      const reason =
        e.code === "REQUEST_TIMEOUT"
          ? `the server stopped responding (${cause.message}; then a ping got no answer within ${this.options.requestTimeoutMs} ms); it was stopped, reconnect it`
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
    for (const timer of this.#listTimers.values()) clearTimeout(timer);
    this.#listTimers.clear();
    await Promise.allSettled([...this.#entries.values()].map((e) => this.#retire(e)));
    await Promise.allSettled([this.#refreshing, ...this.#background]);
    await (await this.#pins?.catch(() => null))?.close();
    await this.#writer.finish();
    this.#errors.complete();
    this.#status.complete();
    this.#upstreamNotifications.complete();
  }

  // ---- pinning ------------------------------------------------------------------------

  /** P4: the pins ledger this host follows (null until a server is pinned). */
  async pins(): Promise<PinKeeper | null> {
    return this.#pins;
  }

  /** P5: records a server's pinning policy when pinning is asked for at all; opens the ledger. */
  async #adoptPins(key: string, config: ExtensionConfig): Promise<void> {
    const policy = config.pinning ?? this.options.pinning;
    if (policy === undefined) return;
    if (policy !== "off")
      this.#pins ??= PinKeeper.open({
        store: this.store,
        state: () => this.state,
        execute: (make) => this.#execute(make),
        now: this.options.now,
        redactor: () => this.#redactor,
        report: (e) => this.#errors.next(e),
        followIntervalMs: this.#pinsFollowIntervalMs,
      });
    const keeper = await this.#pins;
    if (keeper) await keeper.adopt(key, policy);
    else await this.#execute(() => ({ type: "SetPinPolicy", extension: key, policy }));
  }

  async #pin(...args: Parameters<PinKeeper["pin"]>): Promise<void> {
    const keeper = this.#pins ? await this.#pins : null;
    await keeper?.pin(...args);
  }

  // ---- internals ----------------------------------------------------------------------

  async #connect(key: string, note = "", signal?: AbortSignal): Promise<void> {
    const entry = this.#entries.get(key);
    if (!entry) throw new AdapterError("COMMAND_REJECTED", `extension ${key} is not in this host`);
    let connection: ExtensionConnection;
    try {
      connection = await ExtensionConnection.connect(entry.config, {
        connectTimeoutMs: this.options.connectTimeoutMs,
        redactor: this.#redactor,
        ...(this.options.maxMessageBytes ? { maxMessageBytes: this.options.maxMessageBytes } : {}),
        onWarning: (message) => this.#errors.next(new AdapterError("MESSAGE_TOO_LARGE", message)),
        onListChanged: () => this.#onListChanged(key, connection),
        onLost: (reason) => this.#onLost(key, connection, reason),
        ...(signal ? { signal } : {}),
        onNotification: (n) => {
          if (n.method === "notifications/prompts/list_changed")
            this.#onCatalogChanged(key, connection, "prompts");
          else if (n.method === "notifications/resources/list_changed")
            this.#onCatalogChanged(key, connection, "resources");
          this.#upstreamNotifications.next({ extension: key, ...n });
        },
        onRequest: (request, signal) => {
          const handler = this.#upstreamRequestHandler;
          if (!handler) {
            throw new McpError(
              ErrorCode.MethodNotFound,
              `${request.method} is not supported: no client is connected to relay it to`,
            );
          }
          return handler(key, request, signal);
        },
      });
    } catch (error) {
      const e = asAdapterError(error);
      if (signal?.aborted) throw e;
      entry.reason = e.message;
      if (this.#entries.get(key) === entry && !this.#closed) {
        await this.#execute((state) => ({
          type: "RecordFetchFailure",
          extension: key,
          startedAtVersion: state.version,
          error: `${e.message}${note}`,
        }));
      }
      throw e;
    }
    if (this.#closed || this.#entries.get(key) !== entry || signal?.aborted) {
      await connection.close();
      return;
    }
    entry.connection = connection;
    entry.connectedAt = Date.now();
    entry.reason = null;
    await this.#pin(key, "instructions", { instructions: connection.instructions });
  }

  /**
   * One attempt of a background start: start the server, list its tools, then fetch what
   * went stale meanwhile. A failure is recorded with the retry it leads to.
   */
  async #attempt(key: string, entry: Entry): Promise<void> {
    if (this.#closed || this.#entries.get(key) !== entry) return;
    const control = new AbortController();
    entry.attempt = control;
    entry.retryTimer = undefined;
    entry.nextAttemptAt = null;
    entry.attempts++;
    this.#setPhase(entry, key, "starting");
    try {
      await this.#connect(key, this.#retryNote(entry), control.signal);
    } catch {
      if (this.#entries.get(key) === entry && !control.signal.aborted) this.#retryLater(key, entry);
      return;
    }
    const connection = entry.connection;
    if (!connection || control.signal.aborted) return;
    this.#setPhase(entry, key, "listing");
    const [failure] = await Promise.all([
      this.#fetchOne(key, (e) => (retryable(e) ? this.#retryNote(entry) : "")),
      this.#fetchLists(key),
    ]);
    if (this.#entries.get(key) !== entry || entry.connection !== connection) return;
    if (failure && retryable(failure) && this.options.retry) {
      // A server that cannot list its tools is started afresh (a hang needs a new process).
      entry.connection = null;
      entry.reason = failure.message;
      await connection.abandon(failure.message);
      this.#retryLater(key, entry);
      return;
    }
    // A server that answered but cannot be listed (a reply over the size limit) is not
    // restarted; its status still says why (issue 10: the real cause, not "failed").
    if (failure) entry.reason = failure.message;
    this.#setPhase(entry, key, failure ? "failed" : "ready");
    await this.refresh();
  }

  /** The note a failure of the current attempt is recorded with: which attempt, what next. */
  #retryNote(entry: Entry): string {
    const policy = this.options.retry;
    if (!policy) return "";
    if (entry.attempts >= policy.attempts)
      return ` (attempt ${entry.attempts} of ${policy.attempts}; no more attempts: restart toolledger or reconnect it)`;
    return ` (attempt ${entry.attempts} of ${policy.attempts}; next attempt in ${seconds(backoff(policy, entry.attempts))})`;
  }

  /** The note a lost connection is recorded with: whether and when it is restarted. */
  #lossNote(entry: Entry): string {
    const policy = this.options.retry;
    if (!policy) return "";
    if (entry.attempts >= policy.attempts)
      return ` (no restart left after ${entry.attempts} attempts: restart toolledger or reconnect it)`;
    return ` (restarting in ${seconds(backoff(policy, entry.attempts))}: attempt ${entry.attempts + 1} of ${policy.attempts})`;
  }

  /** Schedules the next attempt (bounded, exponential backoff), or gives up. */
  #retryLater(key: string, entry: Entry): void {
    const policy = this.options.retry;
    if (this.#closed || !policy || entry.attempts >= policy.attempts) {
      this.#setPhase(entry, key, "failed");
      return;
    }
    const delay = backoff(policy, entry.attempts);
    entry.nextAttemptAt = new Date(Date.now() + delay);
    this.#setPhase(entry, key, "retrying");
    entry.retryTimer = setTimeout(() => this.#track(this.#attempt(key, entry)), delay);
    entry.retryTimer.unref?.();
  }

  #setPhase(entry: Entry, key: string, phase: ExtensionPhase): void {
    entry.phase = phase;
    if (!this.#closed) this.#status.next(statusOf(key, entry));
  }

  /** Closes an entry's connection on purpose (not reported as a loss). */
  async #retire(entry: Entry): Promise<void> {
    const connection = entry.connection;
    entry.attempt?.abort();
    entry.attempt = null;
    clearTimeout(entry.retryTimer);
    entry.retryTimer = undefined;
    entry.nextAttemptAt = null;
    entry.connection = null;
    entry.reason = "disconnected by the host";
    entry.phase = "stopped";
    if (connection) await connection.close();
  }

  #live(key: string): boolean {
    const c = this.#entries.get(key)?.connection;
    return c !== null && c !== undefined && !c.closed;
  }

  /** R11: a list change invalidates the cache now; the refetch waits for the burst to end. */
  #onListChanged(key: string, connection: ExtensionConnection): void {
    if (this.#closed || this.#entries.get(key)?.connection !== connection) return;
    const invalidated = this.#execute(() => ({ type: "InvalidateTools", extension: key }));
    this.#track(invalidated);
    clearTimeout(this.#refreshTimer);
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined;
      // The refetch reads what is stale once the invalidation is stored (a durable store
      // may take longer than the debounce), else it finds nothing to fetch.
      if (!this.#closed) this.#track(invalidated.then(() => this.refresh()));
    }, this.options.refetchDebounceMs);
  }

  /** A crash or a hang: recorded as a failed fetch at the current version, so it shows in the diagnostics. */
  #onLost(key: string, connection: ExtensionConnection, reason: string): void {
    const entry = this.#entries.get(key);
    if (this.#closed || entry?.connection !== connection) return;
    entry.connection = null;
    entry.reason = reason;
    const policy = this.options.retry;
    // A server that stayed up long enough is not in a crash loop: it gets its attempts back.
    if (
      policy &&
      entry.connectedAt !== null &&
      Date.now() - entry.connectedAt >= (policy.stableMs ?? DEFAULT_RETRY.stableMs!)
    )
      entry.attempts = 0;
    const note = this.#lossNote(entry);
    const error = `extension ${JSON.stringify(entry.config.name)} is unavailable: ${reason}`;
    this.#track(
      this.#execute((state) => ({
        type: "RecordFetchFailure",
        extension: key,
        startedAtVersion: state.version,
        error: `${error}${note}`,
      })),
    );
    // G1: its prompts and resources leave the lists with its tools.
    const catalog = getExtension(this.state, key)?.catalog;
    if (catalog?.promptsList.status === "ok") {
      this.#track(
        this.#execute(() => ({
          type: "RecordPrompts",
          extension: key,
          startedAtVersion: this.#listVersion(key, "prompts"),
          prompts: [],
          error,
        })),
      );
    }
    if (catalog?.resourcesList.status === "ok") {
      this.#track(
        this.#execute(() => ({
          type: "RecordResources",
          extension: key,
          startedAtVersion: this.#listVersion(key, "resources"),
          resources: [],
          resourceTemplates: [],
          error,
        })),
      );
    }
    if (policy) this.#retryLater(key, entry);
    else this.#setPhase(entry, key, "failed");
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

  #execute(make: (state: State) => Command): Promise<ToolledgerEvent[]> {
    return this.#writer.execute(make);
  }

  #open(): void {
    if (this.#closed)
      throw new AdapterError("SESSION_CLOSED", "the host is closed; open a new one");
  }
}

/** Opens a host (see ToolledgerHost.open). */
export function openHost(options: HostOptions = {}): Promise<ToolledgerHost> {
  return ToolledgerHost.open(options);
}

function isRegistryEvent(event: ToolledgerEvent): boolean {
  return REGISTRY_EVENT_TYPES.has(event.type);
}

function newEntry(config: ExtensionConfig): Entry {
  return {
    config,
    connection: null,
    reason: "connecting",
    phase: "starting",
    attempts: 0,
    nextAttemptAt: null,
    retryTimer: undefined,
    connectedAt: null,
    attempt: null,
    started: null,
    startedDone: true,
  };
}

function statusOf(key: string, e: Entry): ExtensionStatus {
  const live = e.connection !== null && !e.connection.closed;
  return {
    key,
    name: e.config.name,
    status: live ? "connected" : "disconnected",
    reason: live && e.phase !== "failed" ? null : e.reason,
    phase: e.phase,
    attempts: e.attempts,
    nextAttemptAt: e.nextAttemptAt?.toISOString() ?? null,
  };
}

/** The wait before attempt `attempt + 1`: initial delay doubled per attempt, capped. */
function backoff(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
}

/** Failures a new process may cure: a failed start, a crash, a hang. A server that answered with an error would answer the same. */
function retryable(e: AdapterError): boolean {
  if (e.code === "PROTOCOL_ERROR") return !e.serverAnswered;
  return (
    e.code === "START_FAILED" || e.code === "REQUEST_TIMEOUT" || e.code === "CONNECTION_CLOSED"
  );
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** R6: the command that records an extension's config (secrets only through the fingerprint). */
function addExtensionCommand(config: ExtensionConfig): Command {
  return {
    type: "AddExtension",
    name: config.name,
    kind: config.kind ?? config.type,
    exposeUnprefixed: config.exposeUnprefixed ?? false,
    hidden: config.hidden ?? false,
    availableTools: config.availableTools ?? [],
    configFingerprint: configFingerprint(config),
  };
}
