import { hostname as machineName } from "node:os";
import {
  type Command,
  type Diagnostic,
  diagnostics,
  type EventStore,
  type ListToolsOptions,
  listTools,
  nameToKey,
  type RegisteredTool,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import { type Observable, Subject } from "rxjs";
import { AdapterError } from "../adapterError.js";
import type { ExtensionConnection, ToolCallResult } from "../connection/extensionConnection.js";
import type { ExtensionConfig } from "../extensionConfig.js";
import type { StreamEvent, StreamWriter } from "../ledger/streamWriter.js";
import { Redactor } from "../redaction/redactor.js";
import type { BackgroundWork } from "./backgroundWork.js";
import {
  callUpstream,
  type UpstreamCallOptions,
  type UpstreamNotification,
  type UpstreamRequestHandler,
} from "./callUpstream.js";
import type { AddResult, ExtensionStatus } from "./extensionStatus.js";
import type { ExtensionSupervisor } from "./extensionSupervisor.js";
import { HostLease } from "./hostLease.js";
import { type HostOptions, type ResolvedHostOptions, resolveHostOptions } from "./hostOptions.js";
import { hostParts } from "./hostParts.js";
import type { ExtensionLists } from "./lists/extensionLists.js";
import { openRegistry } from "./openRegistry.js";
import type { HostPins } from "./pins/hostPins.js";
import type { PinKeeper } from "./pins/pinKeeper.js";
import { startAdded } from "./startAdded.js";
import type { Supervisors } from "./supervisors.js";

/**
 * A host (C1): it owns the registry stream and, through one supervisor per extension, the
 * live connections to the extensions' MCP servers, and folds the registry from its stream.
 * Conversations are opened on it (`openConversation`) and read its registry; they never
 * touch its connections except through `callUpstream`.
 */
export class ToolledgerHost {
  readonly store: EventStore;
  /** The registry stream (C1). */
  readonly streamId: string;
  /** Every event this host appends to its registry stream, once it is stored. */
  readonly events$: Observable<StreamEvent>;
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
  readonly options: ResolvedHostOptions;

  readonly #writer: StreamWriter;
  readonly #errors = new Subject<AdapterError>();
  readonly #status = new Subject<ExtensionStatus>();
  readonly #upstreamNotifications = new Subject<UpstreamNotification>();
  #upstreamRequestHandler: UpstreamRequestHandler | null = null;
  /** Its extensions, one supervisor each. */
  readonly #supervisors: Supervisors;
  /** R11/G1: the extensions' tools, prompts and resources, listed and refetched. */
  readonly #lists: ExtensionLists;
  readonly #background: BackgroundWork;
  /** P4: the pins ledger, once a server is pinned. */
  readonly #pins: HostPins;
  /** Every added config's secrets (R6). */
  #redactor = Redactor.none;
  #closed = false;

  private constructor(writer: StreamWriter, options: HostOptions) {
    this.#writer = writer;
    this.store = writer.store;
    this.streamId = writer.streamId;
    this.hostname = options.hostname ?? machineName();
    this.options = resolveHostOptions(options);
    this.events$ = writer.events$;
    this.state$ = writer.state$;
    this.errors$ = this.#errors.asObservable();
    this.status$ = this.#status.asObservable();
    this.upstreamNotifications$ = this.#upstreamNotifications.asObservable();
    const parts = hostParts(writer, this.options, {
      errors: this.#errors,
      status: this.#status,
      notifications: this.#upstreamNotifications,
      redactor: () => this.#redactor,
      addSecret: (value) => {
        this.#redactor = this.#redactor.with(Redactor.forValues([value]));
      },
      closed: () => this.#closed,
      upstreamRequestHandler: () => this.#upstreamRequestHandler,
    });
    this.#background = parts.background;
    this.#pins = parts.pins;
    this.#lists = parts.lists;
    this.#supervisors = parts.supervisors;
  }

  /**
   * Opens a host on `store`: resumes `registryStreamId` when it already holds events (a
   * legacy single-stream session is refused: it holds a conversation too) and records the
   * run with HostStarted.
   */
  static async open(options: HostOptions = {}): Promise<ToolledgerHost> {
    const host = await openRegistry(options, (writer) => new ToolledgerHost(writer, options));
    const lease = host.options.lease;
    if (lease === false) return host;
    try {
      host.#lease = await HostLease.start(host.store, {
        holder: host.streamId,
        hostname: host.hostname,
        now: host.options.now,
        report: (error) => host.#background.report(error),
        ...lease,
      });
    } catch (error) {
      await host.close();
      throw error;
    }
    return host;
  }

  /** L3: this host's lease, in a store that keeps them. */
  #lease: HostLease | null = null;

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
   * lists it. A server that does not start is recorded (ToolsFetchFailed, so it shows in
   * the diagnostics), stays reconnectable, and the START_FAILED error is thrown.
   */
  async addExtension(config: ExtensionConfig): Promise<void> {
    const [result] = await this.addExtensions([config]);
    if (result?.error) throw result.error;
  }

  /**
   * Connects several extensions: every ExtensionAdded first, then the connections in
   * parallel, then one listing each. Failures to start are returned, not thrown.
   */
  async addExtensions(configs: readonly ExtensionConfig[]): Promise<AddResult[]> {
    const added = await this.#add(configs);
    return startAdded(configs, added, {
      lists: this.#lists,
      refresh: () => this.refresh(),
      current: (s) => this.#supervisors.current(s),
      state: () => this.state,
    });
  }

  /**
   * Adds extensions without waiting for their servers: every ExtensionAdded is appended,
   * then each server is started, listed and (with a `retry` policy) restarted on its own in
   * the background, so a host can serve at once with what is ready. A server that comes up
   * later joins the registry like any list change; `status$` and `extensions()` say where
   * each one is, `whenStarted()` when every first attempt is over, and `untilListed()` what
   * a first tools/list waits for.
   */
  async startExtensions(configs: readonly ExtensionConfig[]): Promise<void> {
    // Every ExtensionAdded first, then the starts: a server is listed once, not again
    // because another one was added after its listing began.
    for (const s of await this.#add(configs)) s?.startInBackground();
  }

  /**
   * What a first list (tools, prompts, resources) waits for: resolves once every extension
   * added with `startExtensions` is listed (ready), failed (out of attempts, or waiting for
   * its next attempt after a failed one), waiting for authorization or removed, or its
   * startup grace (its config's `startupGraceMs`, else the host's) ran out since it began.
   * Costs nothing once every startup is over.
   */
  untilListed(): Promise<void> {
    return this.#supervisors.untilListed();
  }

  /** Resolves once every extension added with `startExtensions` is past its first attempt. */
  async whenStarted(): Promise<void> {
    await this.#supervisors.whenStarted();
  }

  /** True while an extension added with `startExtensions` is in its first start. */
  get starting(): boolean {
    return this.#supervisors.starting;
  }

  /**
   * Waits, at most `ms`, until the extensions that could own `names` (by their prefix, R5,
   * or any unprefixed one) are past their first start or past their startup grace: a call or
   * an enable that names a tool of a server still starting is answered once that server is
   * up, not refused as unknown (after the grace it is refused at once: it has not started).
   * Names that resolve now cost nothing.
   */
  async untilStartedFor(names: readonly string[], ms: number): Promise<void> {
    if (this.starting) await this.#supervisors.untilStartedFor(this.state, names, ms);
  }

  /** R7: disconnects the extension and removes it and its tools. */
  async removeExtension(name: string): Promise<void> {
    this.#open();
    const key = nameToKey(name);
    await this.#supervisors.remove(key);
    await this.#execute(() => ({ type: "RemoveExtension", extension: key }));
    await this.refresh();
  }

  /** Connects a crashed, hung or failed extension again and fetches its tools. */
  async reconnect(name: string): Promise<void> {
    this.#open();
    await this.#supervisors.named(name).reconnect();
  }

  /** Connection status of every extension this host connected. */
  extensions(): ExtensionStatus[] {
    return this.#supervisors.statuses();
  }

  /**
   * R11: fetches every stale connected extension, each until it is current (a list change
   * that raced a fetch makes it go again), up to a bound so a server that changes on every
   * list cannot spin the host. A caller joins a run already in flight for an extension.
   */
  async refresh(): Promise<void> {
    const stale = this.#supervisors.staleConnected(this.state);
    await Promise.all(stale.map((s) => this.#lists.listTools(s, false)));
  }

  /** Resolves once pending list_changed work and refetches are done. */
  async settled(): Promise<void> {
    while (this.#lists.busy || this.#background.busy) {
      await this.#lists.settled();
      await this.#background.settled();
    }
  }

  /** G1: the live connection of an extension (name or key), for relaying requests to its server. */
  connection(nameOrKey: string): ExtensionConnection | undefined {
    return this.#supervisors.connection(nameOrKey);
  }

  /** G1: who answers sampling and elicitation requests from the servers (the gateway). */
  setUpstreamRequestHandler(handler: UpstreamRequestHandler | null): void {
    this.#upstreamRequestHandler = handler;
  }

  // ---- queries and calls --------------------------------------------------------------

  /** R12: the registry's tools (visible ones unless `includeHidden`). */
  listTools(options: ListToolsOptions = {}): RegisteredTool[] {
    return listTools(this.state, options);
  }

  /** E3: collisions, failed fetches (crashes, hangs, guards), rejected tools, stale fetches. */
  diagnostics(): Diagnostic[] {
    return diagnostics(this.state);
  }

  /**
   * Calls `rawName` on the server of extension `key` (resolution and refusals are the
   * conversation's). A missing or lost connection throws EXTENSION_UNAVAILABLE; timeouts,
   * cancellation and lost connections throw AdapterError. A call that times out or fails in
   * transport triggers a liveness ping, and a server that misses it too is recorded as hung
   * and disconnected.
   */
  callUpstream(
    key: string,
    rawName: string,
    args: Record<string, unknown>,
    options: UpstreamCallOptions = {},
  ): Promise<ToolCallResult> {
    this.#open();
    const s = this.#supervisors.get(key);
    return callUpstream(
      {
        key,
        connection: s?.connection ?? null,
        reason: s?.reason ?? null,
        callTimeoutMs: s?.config.callTimeoutMs ?? this.options.callTimeoutMs,
        requestTimeoutMs: this.options.requestTimeoutMs,
      },
      rawName,
      args,
      options,
      (probe) => this.#background.track(probe),
    );
  }

  // ---- lifecycle ----------------------------------------------------------------------

  /**
   * Issue 20: records every server still starting, listing or waiting to be started again as
   * a failed fetch that says where it was, so replay, explain and the view can tell why its
   * tools were missing. `close` does it; a gateway calls it first, while its conversations
   * are still open (their logs end when they close). Once per server.
   */
  async recordUnfinishedStarts(): Promise<void> {
    if (this.#closed) return;
    await this.#supervisors.recordUnfinishedStarts();
  }

  /** Disconnects every extension. The store stays open (it belongs to the caller). */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.recordUnfinishedStarts().catch((error: unknown) => this.#background.report(error));
    this.#closed = true;
    this.#lists.close();
    await this.#supervisors.retireAll();
    await this.#background.settled();
    await this.#pins.close();
    await this.#writer.finish();
    // L3: a clean stop; its conversations were closed by whoever served them.
    await this.#lease?.release().catch((error: unknown) => this.#background.report(error));
    this.#errors.complete();
    this.#status.complete();
    this.#upstreamNotifications.complete();
  }

  /** P4: the pins ledger this host follows (null until a server is pinned). */
  async pins(): Promise<PinKeeper | null> {
    return this.#pins.keeper();
  }

  // ---- internals ----------------------------------------------------------------------

  /** R6: every config's ExtensionAdded and a new supervisor (see Supervisors.add); its secrets join the redactor first. */
  #add(configs: readonly ExtensionConfig[]): Promise<(ExtensionSupervisor | null)[]> {
    this.#open();
    this.#redactor = this.#redactor.with(Redactor.forConfigs(configs));
    return this.#supervisors.add(configs);
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
