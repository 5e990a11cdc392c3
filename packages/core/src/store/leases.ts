// L3: who is alive. A process that serves conversations holds a lease in its store, renewed
// while it runs; a conversation whose process's lease lapsed (or whose process is known dead)
// is ended as lost by whoever finds it. Leases live beside the log, never in it: they change
// every few seconds and mean nothing once their holder is gone.

/** A lease as its holder renews it. */
export interface LeaseRenewal {
  /** The registry stream of the host that serves the conversations (one per process run). */
  holder: string;
  hostname: string;
  pid: number;
  /**
   * Where `pid` means something: the machine's boot and the process's PID namespace
   * (`<boot id>/<pid namespace>`), or null where that cannot be read. Only a reader in the
   * same space may take a missing process for a dead holder.
   */
  pidSpace: string | null;
  /** How long the lease holds after this renewal, in ms. */
  ttlMs: number;
}

/** A lease as the store holds it (times by the store's clock, ISO-8601). */
export interface Lease {
  holder: string;
  hostname: string;
  pid: number;
  pidSpace: string | null;
  renewedAt: string;
  expiresAt: string;
}

/** What the store reports of the leases asked for, with its own clock's time. */
export interface LeaseReading {
  /** The store's time when it read them: compare `expiresAt` with this, not a local clock. */
  now: string;
  leases: Lease[];
}

/** A conversation whose latest lifecycle event opens it (it has not been closed since). */
export interface OpenConversation {
  conversationId: string;
  /** The registry stream (host run) that opened or resumed it last: the lease holder to ask. */
  registryStream: string;
  /** When the store recorded its last event. */
  lastRecordedAt: string;
}

/** The lease every serving process of a store keeps, unless it says otherwise. */
export const LEASE_TTL_MS = 15_000;
/** How often a serving process renews its lease (and looks for conversations of gone ones). */
export const LEASE_RENEW_MS = 5_000;
