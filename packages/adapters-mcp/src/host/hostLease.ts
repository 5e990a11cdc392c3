import { readFileSync, readlinkSync } from "node:fs";
import {
  decide,
  type EventStore,
  LEASE_RENEW_MS,
  LEASE_TTL_MS,
  type Lease,
  loadConversationState,
  type OpenConversation,
  type SessionStore,
} from "@toolledger/core";
import { AdapterError } from "../adapterError.js";
import { newEventId } from "../ledger/newEventId.js";

/** A store that keeps leases (the SQL stores do; the in-memory one does not). */
function leaseStore(store: EventStore): SessionStore | null {
  const s = store as Partial<SessionStore>;
  return typeof s.renewLease === "function" && typeof s.openConversations === "function"
    ? (store as SessionStore)
    : null;
}

/**
 * Where this process's PID means something: the machine's boot and its PID namespace, so a
 * reader elsewhere (another container with the same hostname) never takes a missing PID for a
 * dead holder. Null where that cannot be read (not Linux).
 */
function pidSpace(): string | null {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    return `${boot}/${readlinkSync("/proc/self/ns/pid")}`;
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface HostLeaseOptions {
  /** The host's registry stream: the lease's holder, named by its conversations. */
  holder: string;
  hostname: string;
  now: () => Date;
  /** Told a conversation was found gone and ended (L3), and any failure doing it. */
  onEnded?: (conversationId: string, gone: string) => void;
  report: (error: unknown) => void;
  ttlMs?: number;
  renewMs?: number;
}

/**
 * L3: this process's lease in its store, renewed while it runs, and the ends of the
 * conversations of processes that are gone: at start, and at every renewal, each open
 * conversation of another holder whose lease lapsed (or who is known dead on this machine)
 * is ended as lost. A store without leases (in memory) has nothing to keep.
 */
export class HostLease {
  readonly #store: SessionStore;
  readonly #options: HostLeaseOptions;
  readonly #space = pidSpace();
  #timer: NodeJS.Timeout | null = null;
  #tick: Promise<void> = Promise.resolve();

  private constructor(store: SessionStore, options: HostLeaseOptions) {
    this.#store = store;
    this.#options = options;
  }

  /** Takes the lease and ends the conversations of gone processes; null for a store without leases. */
  static async start(store: EventStore, options: HostLeaseOptions): Promise<HostLease | null> {
    const s = leaseStore(store);
    if (!s) return null;
    const lease = new HostLease(s, options);
    await lease.#renew();
    await lease.endLost().catch(options.report);
    lease.#timer = setInterval(() => {
      lease.#tick = lease.#tick.then(() => lease.#renewAndReap());
    }, options.renewMs ?? LEASE_RENEW_MS);
    lease.#timer.unref();
    return lease;
  }

  async #renewAndReap(): Promise<void> {
    try {
      await this.#renew();
      await this.endLost();
    } catch (error) {
      this.#options.report(error);
    }
  }

  #renew(): Promise<Lease> {
    return this.#store.renewLease({
      holder: this.#options.holder,
      hostname: this.#options.hostname,
      pid: process.pid,
      pidSpace: this.#space,
      ttlMs: this.#options.ttlMs ?? LEASE_TTL_MS,
    });
  }

  /** Ends (L3) every open conversation of a holder that is gone. Returns how many. */
  async endLost(): Promise<number> {
    const open = (await this.#store.openConversations()).filter(
      (c) => c.registryStream !== this.#options.holder,
    );
    if (open.length === 0) return 0;
    const reading = await this.#store.readLeases([...new Set(open.map((c) => c.registryStream))]);
    const leases = new Map(reading.leases.map((l) => [l.holder, l]));
    let ended = 0;
    for (const c of open) {
      const lease = leases.get(c.registryStream);
      const gone = this.#gone(c, lease, reading.now);
      if (gone === null) continue;
      const lastSeen = [lease?.renewedAt, c.lastRecordedAt]
        .filter((t): t is string => t !== undefined)
        .sort()
        .at(-1)!;
      if (
        await endLostConversation(this.#store, c.conversationId, lastSeen, gone, this.#options.now)
      ) {
        ended++;
        this.#options.onEnded?.(c.conversationId, gone);
      }
    }
    return ended;
  }

  /** Why the holder of `c` is gone, or null while it may be alive. */
  #gone(c: OpenConversation, lease: Lease | undefined, now: string): string | null {
    if (!lease) {
      // No lease at all: a gateway from before leases, or one that released it and died
      // before closing. A quiet conversation only: one written to within a lease's time may
      // be an older gateway still serving it.
      const quietFor = Date.parse(now) - Date.parse(c.lastRecordedAt);
      return quietFor > (this.#options.ttlMs ?? LEASE_TTL_MS)
        ? `gateway ${c.registryStream} holds no lease and wrote nothing since ${c.lastRecordedAt}`
        : null;
    }
    if (lease.expiresAt <= now)
      return `the lease of gateway ${c.registryStream} (pid ${lease.pid} on ${lease.hostname}) lapsed at ${lease.expiresAt}`;
    if (this.#space !== null && lease.pidSpace === this.#space && !processAlive(lease.pid))
      return `gateway ${c.registryStream} (pid ${lease.pid} on ${lease.hostname}) is no longer running`;
    return null;
  }

  /** Stops renewing and gives the lease up (a clean stop: its conversations are closed). */
  async release(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#tick;
    await this.#store.releaseLease(this.#options.holder);
  }
}

/** How many times the end of a lost conversation is decided again when its stream moved. */
const RETRIES = 5;

/**
 * L3: appends the end of a conversation whose gateway is gone (EndLostConversation, decided
 * against its folded state with the exact expected version: a writer that moved it first wins,
 * and the end is decided again). False when there was nothing to end (closed meanwhile).
 */
export async function endLostConversation(
  store: EventStore,
  conversationId: string,
  lastSeen: string,
  gone: string,
  now: () => Date,
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const { state, version } = await loadConversationState(store, conversationId);
    const decision = decide(state, {
      type: "EndLostConversation",
      at: now().toISOString(),
      lastSeen,
      gone,
    });
    if (!decision.ok || decision.events.length === 0) return false;
    const result = await store.append(
      conversationId,
      decision.events.map((event) => ({ eventId: newEventId(), event })),
      version,
    );
    if (result.ok) return true;
    if (result.error.code !== "VERSION_CONFLICT")
      throw new AdapterError(
        "APPEND_REJECTED",
        `the event store refused the end of lost conversation ${conversationId}: ${result.error.code}`,
      );
    if (attempt >= RETRIES) return false;
  }
}
