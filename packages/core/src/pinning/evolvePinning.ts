import { type Dict, get, setOwn } from "../fold/records.js";
import type { State } from "../fold/state.js";
import { update } from "../fold/update.js";
import { nameToKey } from "../naming/nameToKey.js";
import type { PinEvent, PinList } from "./pinEvents.js";
import { type ExtensionPins, type PinRecord, pinKey, REJECTED_HISTORY_LIMIT } from "./pinState.js";

const NO_PINS: ExtensionPins = Object.freeze({
  policy: null,
  baselines: [],
  baselineAt: {},
  records: {},
  unsettled: 0,
});

/**
 * P1–P6: folds a pin event into the server's pins. The same fold serves the pins ledger and
 * a host's registry stream (which carries and mirrors the ledger's events, P4); it never
 * touches the registry's tools, and a decision on a digest nobody awaits changes nothing.
 */
export function evolvePinning(state: State, event: PinEvent): State {
  const key = nameToKey(event.extension);
  const before = get(state.pinning, key) ?? NO_PINS;
  const after = evolveExtensionPins(before, event);
  if (after === before) return state;
  const pinning: Record<string, ExtensionPins> = { ...state.pinning };
  setOwn(pinning, key, after);
  return update(state, { pinning });
}

function evolveExtensionPins(pins: ExtensionPins, event: PinEvent): ExtensionPins {
  const at = event.at ?? null;
  switch (event.type) {
    case "PinPolicySet":
      return pins.policy === event.policy ? pins : { ...pins, policy: event.policy };
    case "PinsCarried": {
      const records: Record<string, PinRecord> = {};
      for (const r of event.records) setOwn(records, pinKey(r.kind, r.name), r);
      const baselineAt: Record<string, string> = {};
      for (const [list, time] of Object.entries(event.baselineAt)) setOwn(baselineAt, list, time);
      return {
        policy: pins.policy,
        baselines: event.baselines,
        baselineAt,
        records,
        unsettled: event.unsettled,
      };
    }
    case "DefinitionsPinned": {
      const records = edit(pins.records, event.items, (record, item) => ({
        ...record,
        approved: { digest: item.digest, definition: item.definition, by: "first use", at },
        awaiting: null,
      }));
      const first = !pins.baselines.includes(event.list) && at !== null;
      return {
        ...pins,
        baselines: withList(pins.baselines, event.list),
        baselineAt: first ? { ...pins.baselineAt, [event.list]: at } : pins.baselineAt,
        records,
      };
    }
    case "DefinitionsChanged": {
      const records = edit(pins.records, event.items, (record, item) => ({
        ...record,
        awaiting: { ...item, at },
      }));
      // P2: a change, a new name no check flagged (after the grace, or a rename within it),
      // or the start of coalescing (P4: later changes go unrecorded) ends the first start's
      // grace for good: later new names are pending.
      const endsGrace =
        event.coalescing ||
        event.items.some((i) => i.status === "changed" || i.findings.length === 0);
      const baselineAt =
        endsGrace && get(pins.baselineAt, event.list) !== undefined
          ? withoutKey(pins.baselineAt, event.list)
          : pins.baselineAt;
      return { ...pins, records, baselineAt, unsettled: pins.unsettled + 1 };
    }
    case "DefinitionsRestored": {
      const records = edit(pins.records, event.items, (record, item) =>
        record.approved?.digest === item.digest ? { ...record, awaiting: null } : record,
      );
      return { ...pins, records, unsettled: pins.unsettled + 1 };
    }
    case "DefinitionsApproved": {
      const records = edit(pins.records, event.items, (record, item) =>
        record.awaiting?.digest === item.digest
          ? {
              ...record,
              approved: {
                digest: item.digest,
                definition: record.awaiting.definition,
                by: event.by,
                at,
              },
              awaiting: null,
              rejected: record.rejected.filter((d) => d !== item.digest),
            }
          : record,
      );
      return { ...pins, records, unsettled: 0 };
    }
    case "DefinitionsRejected": {
      const records = edit(pins.records, event.items, (record, item) =>
        record.awaiting?.digest === item.digest && !record.rejected.includes(item.digest)
          ? {
              ...record,
              rejected: [...record.rejected, item.digest].slice(-REJECTED_HISTORY_LIMIT),
            }
          : record,
      );
      return { ...pins, records, unsettled: 0 };
    }
  }
}

function edit<I extends { kind: PinRecord["kind"]; name: string }>(
  records: Dict<PinRecord>,
  items: readonly I[],
  change: (record: PinRecord, item: I) => PinRecord,
): Dict<PinRecord> {
  if (items.length === 0) return records;
  const next: Record<string, PinRecord> = { ...records };
  for (const item of items) {
    const k = pinKey(item.kind, item.name);
    const record = get(next, k) ?? {
      kind: item.kind,
      name: item.name,
      approved: null,
      awaiting: null,
      rejected: [],
    };
    setOwn(next, k, change(record, item));
  }
  return next;
}

function withoutKey(dict: Dict<string>, key: string): Dict<string> {
  const next: Record<string, string> = {};
  for (const [k, value] of Object.entries(dict)) if (k !== key) setOwn(next, k, value);
  return next;
}

function withList(lists: readonly PinList[], list: PinList): readonly PinList[] {
  return lists.includes(list) ? lists : [...lists, list];
}
