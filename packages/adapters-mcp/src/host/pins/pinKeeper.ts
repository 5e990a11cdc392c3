import {
  type Command,
  type EventStore,
  type ExtensionPins,
  initialState,
  type LedgerEvent,
  type Listing,
  nameToKey,
  PINS_LEDGER_STREAM,
  type PinList,
  type PinPolicy,
  type PinRecord,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import type { Subscription } from "rxjs";
import { AdapterError, asAdapterError } from "../../adapterError.js";
import { StreamWriter } from "../../ledger/streamWriter.js";
import type { Redactor } from "../../redaction/redactor.js";

/** What a keeper needs of the host whose registry stream it writes pins into. */
export interface PinnedRegistry {
  store: EventStore;
  state(): State;
  execute(make: (state: State) => Command): Promise<ToolledgerEvent[]>;
  now: () => Date;
  redactor: () => Redactor;
  report: (error: AdapterError) => void;
  /** How often to look for decisions another process appended to the ledger (ms); 0 never. */
  followIntervalMs: number;
}

const LEDGER_EVENTS = new Set<string>([
  "DefinitionsPinned",
  "DefinitionsChanged",
  "DefinitionsRestored",
  "DefinitionsApproved",
  "DefinitionsRejected",
]);

/**
 * P4: a host's side of pinning. Every listing of a pinned server is decided against the pins
 * ledger (the database's one stream of pinning decisions, across runs and hosts) before the
 * listing is recorded, and whatever the ledger holds about the host's servers — its own
 * decisions, another host's, `toolledger approve` from the CLI — is copied into the host's
 * registry stream in ledger order, so a registry stream (and every conversation replayed
 * over it) folds what was enforced. The ledger is followed every `followIntervalMs`.
 */
export class PinKeeper {
  readonly #registry: PinnedRegistry;
  readonly #ledger: StreamWriter;
  readonly #policies = new Map<string, PinPolicy>();
  readonly #subscription: Subscription;
  #follow: NodeJS.Timeout | undefined;
  #following: Promise<unknown> | null = null;
  /** The registry copies queued so far (each after the one before). */
  #mirrored: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(registry: PinnedRegistry, ledger: StreamWriter) {
    this.#registry = registry;
    this.#ledger = ledger;
    this.#subscription = ledger.events$.subscribe(({ event }) => this.#mirror(event));
    if (registry.followIntervalMs > 0) {
      this.#follow = setInterval(() => {
        this.#following ??= this.catchUp()
          .catch((error: unknown) => registry.report(asAdapterError(error)))
          .finally(() => {
            this.#following = null;
          });
      }, registry.followIntervalMs);
      this.#follow.unref();
    }
  }

  /** Reads the pins ledger of `registry.store` and starts following it. */
  static async open(registry: PinnedRegistry): Promise<PinKeeper> {
    const loaded = await StreamWriter.load(registry.store, PINS_LEDGER_STREAM, initialState());
    const ledger = new StreamWriter(
      registry.store,
      PINS_LEDGER_STREAM,
      loaded.state,
      loaded.version,
      {
        now: registry.now,
        // Decided with the registry's servers (who is shadowed, P3), the ledger's pins.
        view: (own) => ({ ...registry.state(), pinning: own.pinning }),
        redactor: registry.redactor,
      },
    );
    return new PinKeeper(registry, ledger);
  }

  /** The ledger as folded so far. */
  get state(): State {
    return this.#ledger.state;
  }

  /**
   * P5: a server joins the registry with `policy`; a pinned one starts from what the ledger
   * knows of it (PinsCarried).
   */
  async adopt(key: string, policy: PinPolicy): Promise<void> {
    this.#policies.set(key, policy);
    await this.#registry.execute(() => ({ type: "SetPinPolicy", extension: key, policy }));
    if (policy === "off") return;
    await this.#ledger.catchUp();
    const pins: ExtensionPins | undefined = Object.hasOwn(this.#ledger.state.pinning, key)
      ? this.#ledger.state.pinning[key]
      : undefined;
    const version = this.#ledger.version;
    await this.#registry.execute(() => ({
      type: "CarryPins",
      extension: key,
      ledgerVersion: version,
      baselines: [...(pins?.baselines ?? [])],
      baselineAt: { ...(pins?.baselineAt ?? {}) },
      records: Object.values(pins?.records ?? {}).map(snapshot),
      unsettled: pins?.unsettled ?? 0,
    }));
  }

  /** The policy a server was adopted with (off when it was not). */
  policy(key: string): PinPolicy {
    return this.#policies.get(key) ?? "off";
  }

  /**
   * P2/P3: decides one listing against the ledger and copies the decision into the registry,
   * before the caller records the listing itself. A failure is reported, not thrown: what is
   * not approved stays quarantined whether or not its change was recorded.
   */
  async pin(key: string, list: PinList, listing: Listing): Promise<void> {
    const policy = this.policy(key);
    if (policy === "off" || this.#closed) return;
    try {
      // Only the listing's own fields: whatever else a caller's object holds stays out.
      const { tools, prompts, resources, resourceTemplates, instructions } = listing;
      await this.#ledger.execute(() => ({
        type: "PinDefinitions",
        extension: key,
        policy,
        list,
        ...(tools ? { tools: [...tools] } : {}),
        ...(prompts ? { prompts: [...prompts] } : {}),
        ...(resources ? { resources: [...resources] } : {}),
        ...(resourceTemplates ? { resourceTemplates: [...resourceTemplates] } : {}),
        ...(instructions !== undefined ? { instructions } : {}),
      }));
    } catch (error) {
      const e = asAdapterError(error);
      if (e.code !== "SESSION_CLOSED")
        this.#registry.report(
          new AdapterError(e.code, `could not pin the ${list} of ${key}: ${e.message}`),
        );
    }
    await this.#mirrored;
  }

  /** C3-style following: folds decisions other processes appended to the ledger. */
  async catchUp(): Promise<number> {
    if (this.#closed) return 0;
    const version = await this.#registry.store.streamVersion(PINS_LEDGER_STREAM);
    if (version <= this.#ledger.version) return 0;
    const arrived = await this.#ledger.catchUp();
    await this.#mirrored;
    return arrived;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#follow);
    await this.#following;
    await this.#ledger.finish();
    this.#subscription.unsubscribe();
    await this.#mirrored;
  }

  /** Copies a ledger event about one of this host's pinned servers into its registry stream. */
  #mirror(event: ToolledgerEvent): void {
    if (!LEDGER_EVENTS.has(event.type)) return;
    const key = nameToKey((event as LedgerEvent).extension);
    if (this.policy(key) === "off") return;
    const copy = this.#registry.execute(() => ({
      type: "MirrorPins",
      events: [event as LedgerEvent],
    }));
    this.#mirrored = Promise.all([this.#mirrored, copy]).catch((error: unknown) => {
      const e = asAdapterError(error);
      if (e.code !== "SESSION_CLOSED") this.#registry.report(e);
    });
  }
}

function snapshot(record: PinRecord) {
  return {
    kind: record.kind,
    name: record.name,
    approved: record.approved,
    awaiting: record.awaiting,
    rejected: [...record.rejected],
  };
}
