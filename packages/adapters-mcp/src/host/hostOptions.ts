import type { EventStore, PinPolicy, StateOptions } from "@toolledger/core";
import type { OAuthRuntime } from "../oauth/oauthRuntime.js";

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
  /**
   * V3: the largest definition (a tool, prompt, resource or resource template, its JSON in
   * UTF-8 bytes) recorded and served; a larger one is left out of the recorded listing and
   * reported with it. At most MAX_DEFINITION_BYTES. Default DEFAULT_MAX_DEFINITION_BYTES (1 MiB).
   */
  maxDefinitionBytes?: number;
  /** Quiet period that folds a burst of list_changed into one refetch. Default 25 ms. */
  refetchDebounceMs?: number;
  /**
   * How long, from its start, a server added with `startExtensions` may take to be listed
   * before `untilListed` (what a first tools/list waits for) stops waiting for it; a server's
   * own `startupGraceMs` wins. Default DEFAULT_STARTUP_GRACE_MS (15 s).
   */
  startupGraceMs?: number;
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
  /** A1–A4: how remote servers are authorized (token store, browser step). Default: no OAuth. */
  oauth?: OAuthRuntime;
  /**
   * L3: in a store that keeps leases (SQLite, PostgreSQL), this host holds one while it runs
   * (renewed every `renewMs`, lapsing `ttlMs` after the last renewal; defaults 5 s and 15 s),
   * and ends as lost the open conversations of gateways that are gone, at its start and at
   * each renewal; `onEnded` is told each one. `false`: no lease, nothing ended.
   */
  lease?:
    | false
    | {
        ttlMs?: number;
        renewMs?: number;
        onEnded?: (conversationId: string, gone: string) => void;
      };
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

/**
 * How long a first tools/list waits for servers still starting: long enough for a server
 * started with `npx -y` or `uvx` from their caches, well inside a client's request timeout
 * (60 s in the MCP SDKs). A server slower than this joins later with tools/list_changed.
 */
export const DEFAULT_STARTUP_GRACE_MS = 15_000;

/**
 * V3: a definition over 1 MiB is a quarter of a million tokens, more than most models read in
 * a whole turn: such a definition is a server's mistake (or an attack on its clients).
 */
export const DEFAULT_MAX_DEFINITION_BYTES = 1024 * 1024;

/**
 * V3: the largest cap on one definition: a definition must fit one page of a served list
 * (DEFAULT_LIST_PAGE_BYTES, 8 MiB) with room for the rest of the message.
 */
export const MAX_DEFINITION_BYTES = 8 * 1024 * 1024 - 128 * 1024;

/** A reasonable policy for a long-running gateway: 6 attempts over about a minute. */
export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 6,
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  stableMs: 60_000,
};

/** A host's options with every default applied (`host.options`). */
export type ResolvedHostOptions = Readonly<{
  requestTimeoutMs: number;
  callTimeoutMs: number;
  connectTimeoutMs: number;
  maxPages: number;
  maxMessageBytes: number | undefined;
  maxDefinitionBytes: number;
  refetchDebounceMs: number;
  startupGraceMs: number;
  retry: RetryPolicy | null;
  now: () => Date;
  state: StateOptions;
  outerPrefixBudget: number;
  pinning: PinPolicy | undefined;
  pinsFollowIntervalMs: number;
  oauth: OAuthRuntime | undefined;
  lease: HostOptions["lease"];
}>;

export function resolveHostOptions(options: HostOptions): ResolvedHostOptions {
  return {
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    callTimeoutMs: options.callTimeoutMs ?? 60_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
    maxPages: options.maxPages ?? 100,
    maxMessageBytes: options.maxMessageBytes,
    maxDefinitionBytes: definitionCap(options.maxDefinitionBytes),
    refetchDebounceMs: options.refetchDebounceMs ?? 25,
    startupGraceMs: options.startupGraceMs ?? DEFAULT_STARTUP_GRACE_MS,
    outerPrefixBudget: options.outerPrefixBudget ?? 0,
    retry: options.retry ?? null,
    now: options.now ?? (() => new Date()),
    state: options.state ?? {},
    pinning: options.pinning,
    pinsFollowIntervalMs: options.pinsFollowIntervalMs ?? 250,
    oauth: options.oauth,
    lease: options.lease ?? {},
  };
}

/** V3: the cap on one definition, checked: a whole number of bytes, at most MAX_DEFINITION_BYTES. */
function definitionCap(bytes: number | undefined): number {
  if (bytes === undefined) return DEFAULT_MAX_DEFINITION_BYTES;
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > MAX_DEFINITION_BYTES)
    throw new RangeError(
      `maxDefinitionBytes must be a whole number of bytes from 1 to ${MAX_DEFINITION_BYTES} (a definition must fit one page of a served list), got ${String(bytes)}`,
    );
  return bytes;
}
