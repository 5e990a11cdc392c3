import type { Dict } from "../fold/records.js";
import type { AwaitingItem, PinKind, PinList, PinPolicy } from "./pinEvents.js";

/** An approved definition: what the model is served while a newer one awaits approval (P2). */
export interface ApprovedDefinition {
  digest: string;
  definition: unknown;
  /** Who approved it: `first use` for a baseline, else the person (`user@host`). */
  by: string;
  at: string | null;
}

/** The latest unapproved definition of a pinned item. */
export type AwaitingDefinition = AwaitingItem & { at: string | null };

/** P1/P2: one pinned item of a server (a tool, a prompt, a resource, a template, its instructions). */
export interface PinRecord {
  kind: PinKind;
  name: string;
  approved: ApprovedDefinition | null;
  awaiting: AwaitingDefinition | null;
  /** Digests a person rejected (the latest few). */
  rejected: readonly string[];
}

/** P1–P6: what is pinned of one server. */
export interface ExtensionPins {
  /** P5: set by the host running it (its registry stream); null where no host said (the ledger, older logs): not enforced. */
  policy: PinPolicy | null;
  /** P2: the listings whose first (non-empty) listing was taken as the baseline. */
  baselines: readonly PinList[];
  /** P2: when each baseline was taken (its event's `at`), for the first start's grace. */
  baselineAt: Dict<string>;
  /** By `pinKey(kind, name)`. */
  records: Dict<PinRecord>;
  /** P4: listings in a row that changed definitions without a decision in between. */
  unsettled: number;
}

/**
 * P2: a server's first start may list in steps (server-everything announces tools with
 * list_changed right after its first listing): new names listed this soon after the baseline
 * are part of it (first use, checks applied). A changed definition never is.
 */
export const BASELINE_GRACE_MS = 10_000;

/** How many rejected digests a record keeps. */
export const REJECTED_HISTORY_LIMIT = 10;
/** P4: after this many changing listings in a row without a decision, changes are no longer recorded. */
export const COALESCE_AFTER = 5;

export function pinKey(kind: PinKind, name: string): string {
  return `${kind}:${name}`;
}

/** The status of a record as the ledger knows it (what `toolledger pins` shows). */
export type RecordStatus = "approved" | "changed" | "pending" | "rejected";

export function recordStatus(record: PinRecord): RecordStatus {
  const awaiting = record.awaiting;
  if (!awaiting) return "approved";
  return record.rejected.includes(awaiting.digest) ? "rejected" : awaiting.status;
}
