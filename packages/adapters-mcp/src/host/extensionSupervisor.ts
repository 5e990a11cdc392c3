import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { type AdapterError, asAdapterError } from "../adapterError.js";
import { ExtensionConnection } from "../connection/extensionConnection.js";
import type { ExtensionConfig } from "../extensionConfig.js";
import { hostAuthorizer } from "../oauth/oauthRuntime.js";
import type { ServerAuthorizer } from "../oauth/serverAuthorizer.js";
import type { ExtensionPhase, ExtensionStatus } from "./extensionStatus.js";
import { DEFAULT_RETRY, type RetryPolicy } from "./hostOptions.js";
import { StartupTracker } from "./startupTracker.js";
import type { SupervisedExtension } from "./supervisedExtension.js";
import type { SupervisorHost } from "./supervisorHost.js";

/**
 * One extension's life (C1): its connection, its attempts and their backoff, its phase. Each
 * connection has a generation; work begun under one (a listing, a notification) speaks for
 * the extension only while that generation is current, so a replaced, lost or retired
 * connection can never record anything.
 */
export class ExtensionSupervisor implements SupervisedExtension {
  readonly key: string;
  readonly config: ExtensionConfig;
  /** Its first start under `startExtensions`: what `whenStarted` and `untilListed` wait for. */
  readonly startup = new StartupTracker();
  /** R11: a ToolsInvalidated was recorded (or queued) since its last tools fetch started. */
  invalidated = false;
  /** R11: the queued ToolsInvalidated, awaited before a fetch reads the version it starts at. */
  invalidation: Promise<unknown> | null = null;
  /** Its unfinished start was recorded (once). */
  unfinishedRecorded = false;
  #reason: string | null = "connecting";
  #phase: ExtensionPhase = "starting";
  #phaseSince = performance.now();
  #attempts = 0;
  #nextAttemptAt: Date | null = null;
  #retryTimer: NodeJS.Timeout | undefined;
  #connectedAt: number | null = null;
  /** Aborts the background attempt in progress (a retire while its server is still starting). */
  #attempt: AbortController | null = null;
  #connection: ExtensionConnection | null = null;
  /** Changes with every connection installed or dropped, and at every retire. */
  #generation = 0;
  #generations = 0;
  /** Removed from its host, or replaced by another config: never starts again. */
  #removed = false;
  /** A1–A4: the remote server's OAuth client, kept across attempts (undefined: not made yet; null: none). */
  #auth: ServerAuthorizer | null | undefined;
  readonly #host: SupervisorHost;

  constructor(host: SupervisorHost, key: string, config: ExtensionConfig) {
    this.#host = host;
    this.key = key;
    this.config = config;
  }

  get generation(): number {
    return this.#generation;
  }

  /** Whether work begun under `generation` still speaks for this extension. */
  current(generation: number): boolean {
    return generation === this.#generation && !this.#removed;
  }

  /** The connection, while it is open. */
  get connection(): ExtensionConnection | null {
    return this.#connection && !this.#connection.closed ? this.#connection : null;
  }

  /** Why it is not connected (or failed), or null. */
  get reason(): string | null {
    return this.#reason;
  }

  get phase(): ExtensionPhase {
    return this.#phase;
  }

  /** When its current phase began (performance.now). */
  get phaseSince(): number {
    return this.#phaseSince;
  }

  get attempts(): number {
    return this.#attempts;
  }

  get status(): ExtensionStatus {
    const live = this.connection !== null;
    return {
      key: this.key,
      name: this.config.name,
      status: live ? "connected" : "disconnected",
      reason: live && this.#phase !== "failed" ? null : this.#reason,
      phase: this.#phase,
      attempts: this.#attempts,
      nextAttemptAt: this.#nextAttemptAt?.toISOString() ?? null,
    };
  }

  /** Its startup grace: its own, else the host's. */
  get startupGraceMs(): number {
    return this.config.startupGraceMs ?? this.#host.options.startupGraceMs;
  }

  /**
   * Enters `phase` and says so; a startup ends at ready, failed, stopped, authorizing or
   * retrying: only a start in progress is waited for (issue 34.2).
   */
  enter(phase: ExtensionPhase): void {
    this.#phase = phase;
    this.#phaseSince = performance.now();
    // Waiting for the user (authorizing) is no start in progress, nor is waiting for the next
    // attempt after a failed one (a command that does not exist fails every time): a first
    // tools/list waits for neither; a server that comes up later joins with list_changed.
    if (phase !== "starting" && phase !== "listing") this.startup.end();
    this.#host.status(this);
  }

  /** Starts it in the background (startExtensions): attempts, with the retry policy. */
  startInBackground(): void {
    const done = this.startup.begin();
    this.#host.track(this.#attemptOnce().finally(done));
  }

  /** One start for `addExtensions`: counted as an attempt; a failure schedules the next. */
  async startOnce(): Promise<void> {
    this.#attempts++;
    try {
      await this.#connect(this.#retryNote());
    } catch (error) {
      if (!this.#removed && !this.#untilAuthorized(error)) this.#retryUnlessRefused(error);
      throw error;
    }
  }

  /** Connects it again, by hand, and lists it. */
  async reconnect(): Promise<void> {
    await this.retire();
    this.#attempts = 1;
    this.enter("starting");
    try {
      await this.#connect();
    } catch (error) {
      this.enter("failed");
      throw error;
    }
    // Its latest fetch may be current (a recorded crash), so it is listed regardless.
    await this.#host.connected(this, () => "");
    this.enter(this.connection ? "ready" : "failed");
  }

  /**
   * Closes its connection on purpose (not reported as a loss) and stops its attempts;
   * `removed`: it leaves its host (removed, or replaced by another config).
   */
  async retire(removed = false): Promise<void> {
    if (removed) this.#removed = true;
    const connection = this.#connection;
    this.#attempt?.abort();
    this.#attempt = null;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#nextAttemptAt = null;
    this.#drop("disconnected by the host");
    this.#phase = "stopped";
    this.startup.end();
    if (connection) await connection.close();
    await this.#auth?.close();
    this.#auth = undefined;
  }

  /**
   * One attempt of a background start: start the server, list it; a failure is recorded
   * with the retry it leads to.
   */
  async #attemptOnce(): Promise<void> {
    if (this.#host.closed || this.#removed) return;
    const control = new AbortController();
    this.#attempt = control;
    this.#retryTimer = undefined;
    this.#nextAttemptAt = null;
    this.#attempts++;
    this.enter("starting");
    try {
      await this.#connect(this.#retryNote(), control.signal);
    } catch (error) {
      if (this.#removed || control.signal.aborted) return;
      if (!this.#untilAuthorized(error)) this.#retryUnlessRefused(error);
      return;
    }
    const connection = this.#connection;
    if (!connection || control.signal.aborted) return;
    const generation = this.#generation;
    this.enter("listing");
    const failure = await this.#host.connected(this, (e) =>
      retryable(e) ? this.#retryNote() : "",
    );
    if (!this.current(generation)) return;
    if (failure?.code === "AUTHORIZATION_REQUIRED") {
      // Listed only with a token (the server let the handshake through): started afresh once authorized.
      this.#drop(failure.message);
      await connection.close();
      this.#untilAuthorized(failure);
      return;
    }
    if (failure && retryable(failure) && this.#host.options.retry) {
      // A server that cannot list its tools is started afresh (a hang needs a new process).
      this.#drop(failure.message);
      await connection.abandon(failure.message);
      this.#retryLater();
      return;
    }
    // A server that answered but cannot be listed (a reply over the size limit) is not
    // restarted; its status still says why (issue 10: the real cause, not "failed").
    if (failure) this.#reason = failure.message;
    this.enter(failure ? "failed" : "ready");
  }

  async #connect(note = "", signal?: AbortSignal): Promise<void> {
    const host = this.#host;
    const generation = ++this.#generations;
    const before = this.#generation;
    const mine = () => this.current(generation);
    let connection: ExtensionConnection;
    this.#auth ??= hostAuthorizer(host.options.oauth, this.config, this.key, {
      record: (command) => host.record(command),
      secret: (value) => host.addSecret(value),
    });
    // V1: probed once per server; a verdict known already is reused (see EraVerdicts).
    const era = await host.eras.attempt(this.key, this.config, this.#auth);
    try {
      connection = await ExtensionConnection.connect(this.config, {
        era: era.request,
        connectTimeoutMs: host.options.connectTimeoutMs,
        redactor: () => host.redactor,
        ...(this.#auth ? { auth: this.#auth } : {}),
        ...(host.options.maxMessageBytes ? { maxMessageBytes: host.options.maxMessageBytes } : {}),
        onWarning: (message) => host.warning(message),
        onListChanged: () => {
          if (mine() && !host.closed) host.listChanged(this);
        },
        onLost: (reason) => this.#onLost(generation, reason),
        ...(signal ? { signal } : {}),
        onNotification: (n) => {
          if (mine() && !host.closed) {
            if (n.method === "notifications/prompts/list_changed")
              host.catalogChanged(this, "prompts");
            else if (n.method === "notifications/resources/list_changed")
              host.catalogChanged(this, "resources");
          }
          host.notification(this, n);
        },
        onRequest: (request, signal) => {
          const handler = host.upstreamRequestHandler;
          if (!handler) {
            throw new ProtocolError(
              ProtocolErrorCode.MethodNotFound,
              `${request.method} is not supported: no client is connected to relay it to`,
            );
          }
          return handler(this.key, request, signal);
        },
      });
    } catch (error) {
      const e = asAdapterError(error);
      if (signal?.aborted) throw e;
      host.eras.failed(this.key, era);
      this.#reason = e.message;
      if (!this.#removed && !host.closed)
        await host.startFailed(
          this,
          `${e.message}${e.code === "AUTHORIZATION_REQUIRED" || e.serverAnswered ? "" : note}`,
        );
      throw e;
    }
    // Retired, removed or closed meanwhile: this connection is not wanted.
    if (host.closed || this.#removed || signal?.aborted || this.#generation !== before) {
      await connection.close();
      return;
    }
    host.record(host.eras.settled(this.key, era, connection.era));
    this.#generation = generation;
    this.#connection = connection;
    this.#connectedAt = Date.now();
    this.#reason = null;
  }

  /**
   * A4: a server that needs the user's authorization waits for it (phase `authorizing`, no
   * restart counted) and starts again once it is done. False for any other failure.
   */
  #untilAuthorized(error: unknown): boolean {
    const authorized = (error as Partial<AdapterError> | null)?.authorized;
    if (!authorized || this.#host.closed) return false;
    this.#reason = (error as AdapterError).message;
    this.enter("authorizing");
    void authorized.then(() => {
      if (this.#host.closed || this.#removed || this.#phase !== "authorizing") return;
      this.#attempts = 0;
      this.#host.track(this.#attemptOnce());
    });
    return true;
  }

  /** A crash or a hang: recorded, then restarted (with a retry policy) or failed. */
  #onLost(generation: number, reason: string): void {
    if (this.#host.closed || !this.current(generation)) return;
    this.#drop(reason);
    const policy = this.#host.options.retry;
    // A server that stayed up long enough is not in a crash loop: it gets its attempts back.
    if (
      policy &&
      this.#connectedAt !== null &&
      Date.now() - this.#connectedAt >= (policy.stableMs ?? DEFAULT_RETRY.stableMs!)
    )
      this.#attempts = 0;
    const error = `extension ${JSON.stringify(this.config.name)} is unavailable: ${reason}`;
    this.#host.lost(this, error, this.#lossNote());
    if (policy) this.#retryLater();
    else this.enter("failed");
  }

  /** No connection from now on; work begun under the old one no longer counts. */
  #drop(reason: string): void {
    this.#connection = null;
    this.#generation = ++this.#generations;
    this.#reason = reason;
  }

  /** The note a failure of the current attempt is recorded with: which attempt, what next. */
  #retryNote(): string {
    const policy = this.#host.options.retry;
    if (!policy) return "";
    const n = this.#attempts;
    if (n >= policy.attempts)
      return ` (attempt ${n} of ${policy.attempts}; no more attempts: restart toolledger or reconnect it)`;
    return ` (attempt ${n} of ${policy.attempts}; next attempt in ${seconds(backoff(policy, n))})`;
  }

  /** The note a lost connection is recorded with: whether and when it is restarted. */
  #lossNote(): string {
    const policy = this.#host.options.retry;
    if (!policy) return "";
    const n = this.#attempts;
    if (n >= policy.attempts)
      return ` (no restart left after ${n} attempts: restart toolledger or reconnect it)`;
    return ` (restarting in ${seconds(backoff(policy, n))}: attempt ${n + 1} of ${policy.attempts})`;
  }

  /** V1: a server that refused the era its config pinned fails at once (a restart cannot cure it). */
  #retryUnlessRefused(error: unknown): void {
    const e = error as Partial<AdapterError> | null;
    if (e?.code === "START_FAILED" && e.serverAnswered) this.enter("failed");
    else this.#retryLater();
  }

  /** Schedules the next attempt (bounded, exponential backoff), or gives up. */
  #retryLater(): void {
    const policy = this.#host.options.retry;
    if (this.#host.closed || !policy || this.#attempts >= policy.attempts) {
      this.enter("failed");
      return;
    }
    const delay = backoff(policy, this.#attempts);
    this.#nextAttemptAt = new Date(Date.now() + delay);
    this.enter("retrying");
    this.#retryTimer = setTimeout(() => this.#host.track(this.#attemptOnce()), delay);
    this.#retryTimer.unref?.();
  }
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

export function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
