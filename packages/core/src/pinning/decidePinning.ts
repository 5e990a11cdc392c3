import {
  type At,
  accepted,
  type Decision,
  type ParsedCommand,
  rejected,
  v,
} from "../decide/decision.js";
import { hget, hvalues } from "../fold/hashDict.js";
import { get } from "../fold/records.js";
import type { State } from "../fold/state.js";
import { nameToKey } from "../naming/nameToKey.js";
import { checkDefinition } from "./checks/checkDefinition.js";
import type { ShadowingContext } from "./checks/shadowing.js";
import { definitionChanges } from "./definitionChanges.js";
import { type ListedItem, listedItems } from "./listedItems.js";
import type {
  AwaitingItem,
  DecidedItem,
  LedgerEvent,
  PinKind,
  PinList,
  PinnedItem,
} from "./pinEvents.js";
import { namelessDigest } from "./pinnedDefinition.js";
import {
  BASELINE_GRACE_MS,
  COALESCE_AFTER,
  type ExtensionPins,
  type PinRecord,
  pinKey,
} from "./pinState.js";

export type PinningCommand = Extract<
  ParsedCommand,
  {
    type:
      | "SetPinPolicy"
      | "PinDefinitions"
      | "ApproveDefinitions"
      | "RejectDefinitions"
      | "CarryPins"
      | "MirrorPins";
  }
>;

/** P1–P6: pinning decides in its own family; the reducer only folds what was decided. */
export function decidePinning(state: State, command: PinningCommand, at: At): Decision {
  switch (command.type) {
    case "SetPinPolicy":
      if (get(state.pinning, nameToKey(command.extension))?.policy === command.policy)
        return accepted([]);
      return accepted([
        {
          type: "PinPolicySet",
          v,
          ...at,
          extension: nameToKey(command.extension),
          policy: command.policy,
        },
      ]);
    case "CarryPins":
      return accepted([
        {
          type: "PinsCarried",
          v,
          ...at,
          extension: nameToKey(command.extension),
          ledgerVersion: command.ledgerVersion,
          baselines: command.baselines,
          baselineAt: command.baselineAt ?? {},
          records: command.records,
          unsettled: command.unsettled,
        },
      ]);
    case "MirrorPins":
      // The ledger decided these; a registry stream keeps them as they were (with their times).
      return accepted(command.events as LedgerEvent[]);
    case "PinDefinitions":
      return decideListing(state, command, at);
    case "ApproveDefinitions":
    case "RejectDefinitions":
      return decideReview(state, command, at);
  }
}

const NO_PINS: ExtensionPins = {
  policy: null,
  baselines: [],
  baselineAt: {},
  records: {},
  unsettled: 0,
};

/**
 * P2/P3/P4: one listing against what is pinned. Trust on first use: the first non-empty
 * listing is the baseline, but for items a check flags (pending). After it, a changed item
 * is `changed`, a new name `pending` (a rename says which approved item it equals), and an
 * item listed as approved again clears what awaited. A server that changed on COALESCE_AFTER
 * listings in a row without a decision records no more changes until one (P4); what is not
 * approved stays unapproved all the same.
 */
function decideListing(
  state: State,
  command: Extract<ParsedCommand, { type: "PinDefinitions" }>,
  at: At,
): Decision {
  const key = nameToKey(command.extension);
  const ext = hget(state.extensions, key);
  if (!ext) {
    return rejected(
      "UNKNOWN_EXTENSION",
      `PinDefinitions: no extension ${JSON.stringify(command.extension)} in the registry`,
    );
  }
  const pins = get(state.pinning, key) ?? NO_PINS;
  const items = listedItems(command.list, command, ext.availableTools);
  const baselined = pins.baselines.includes(command.list);
  const since = get(pins.baselineAt, command.list);
  const listedNames = new Set(items.map((i) => pinKey(i.kind, i.name)));
  // P2: the first start's listings are one baseline: new names join it for a few seconds,
  // while the listing still holds every approved name of the list (a rename or a removal
  // ends it, so a renamed tool is pending).
  const firstUse =
    !baselined ||
    (since !== undefined &&
      command.at !== undefined &&
      Date.parse(command.at) - Date.parse(since) <= BASELINE_GRACE_MS &&
      keepsApproved(pins, command.list, listedNames));
  if (!baselined && items.length === 0) return accepted([]);
  let context: ShadowingContext | null = null;
  const check = (item: ListedItem) => {
    context ??= shadowingContext(state, key, command.list === "tools" ? items : null);
    return checkDefinition(item.definition, context);
  };
  const pinned: PinnedItem[] = [];
  const awaiting: AwaitingItem[] = [];
  const restored: DecidedItem[] = [];
  for (const item of items) {
    const record = get(pins.records, pinKey(item.kind, item.name));
    if (record?.approved?.digest === item.digest) {
      if (record.awaiting) restored.push(decided(item));
      continue;
    }
    if (record?.awaiting?.digest === item.digest || record?.rejected.includes(item.digest))
      continue;
    const findings = check(item);
    if (!record?.approved && firstUse && findings.length === 0) {
      pinned.push({ ...decided(item), definition: item.definition });
      continue;
    }
    awaiting.push(
      record?.approved
        ? {
            ...decided(item),
            definition: item.definition,
            status: "changed",
            previous: record.approved.digest,
            changes: definitionChanges(record.approved.definition, item.definition),
            findings,
            renamedFrom: null,
          }
        : {
            ...decided(item),
            definition: item.definition,
            status: "pending",
            previous: null,
            changes: [],
            findings,
            renamedFrom: firstUse ? null : renamedFrom(pins, item, listedNames),
          },
    );
  }
  const events: LedgerEvent[] = [];
  const extension = key;
  if (firstUse)
    events.push({
      type: "DefinitionsPinned",
      v,
      ...at,
      extension,
      list: command.list,
      items: pinned,
    });
  // P4: a server that keeps changing is not a storm of events.
  const changing = awaiting.length > 0 || restored.length > 0;
  if (changing && pins.unsettled < COALESCE_AFTER) {
    if (restored.length > 0)
      events.push({
        type: "DefinitionsRestored",
        v,
        ...at,
        extension,
        list: command.list,
        items: restored,
      });
    if (awaiting.length > 0)
      events.push({
        type: "DefinitionsChanged",
        v,
        ...at,
        extension,
        list: command.list,
        items: awaiting,
        coalescing: pins.unsettled + 1 >= COALESCE_AFTER,
      });
  }
  return accepted(events);
}

function decided(item: ListedItem): DecidedItem {
  return { kind: item.kind, name: item.name, digest: item.digest };
}

/** The kinds of item each list holds. */
const LIST_KINDS: Readonly<Record<PinList, readonly PinKind[]>> = {
  tools: ["tool"],
  prompts: ["prompt"],
  resources: ["resource", "resource_template"],
  instructions: ["instructions"],
};

/** Whether a listing still holds every approved item of its list. */
function keepsApproved(pins: ExtensionPins, list: PinList, listed: ReadonlySet<string>): boolean {
  for (const record of Object.values(pins.records))
    if (
      record.approved &&
      LIST_KINDS[list].includes(record.kind) &&
      !listed.has(pinKey(record.kind, record.name))
    )
      return false;
  return true;
}

/** A new name whose definition equals an approved item that this listing no longer has. */
function renamedFrom(
  pins: ExtensionPins,
  item: ListedItem,
  listed: ReadonlySet<string>,
): string | null {
  const digest = namelessDigest(item.definition);
  for (const record of Object.values(pins.records)) {
    if (record.kind !== item.kind || !record.approved) continue;
    if (listed.has(pinKey(record.kind, record.name))) continue;
    if (namelessDigest(record.approved.definition) === digest) return record.name;
  }
  return null;
}

/** P3: the other servers a definition could shadow, from the registry as it is. */
function shadowingContext(
  state: State,
  own: string,
  listed: readonly ListedItem[] | null,
): ShadowingContext {
  const ownExt = hget(state.extensions, own);
  const ownTools = new Set<string>(
    listed ? listed.map((i) => i.name) : (ownExt?.tools.map((t) => t.rawName) ?? []),
  );
  return {
    own,
    ownTools,
    others: hvalues(state.extensions)
      .filter((e) => e.key !== own)
      .map((e) => ({
        key: e.key,
        name: e.name,
        tools: e.tools.map((t) => ({ rawName: t.rawName, publicName: t.publicName })),
      })),
  };
}

/**
 * P6: a person's approval or rejection, of the digests they reviewed. Every item must await
 * a decision with exactly that digest: a definition that changed again since it was shown
 * is refused (review it again), so nobody approves what they did not see.
 */
function decideReview(
  state: State,
  command: Extract<ParsedCommand, { type: "ApproveDefinitions" | "RejectDefinitions" }>,
  at: At,
): Decision {
  const key = nameToKey(command.extension);
  const pins = get(state.pinning, key);
  for (const item of command.items) {
    const record: PinRecord | undefined = pins
      ? get(pins.records, pinKey(item.kind, item.name))
      : undefined;
    const what = `${item.kind} ${JSON.stringify(item.name)} of ${key}`;
    if (!record) return rejected("UNKNOWN_DEFINITION", `no pinned ${what}`);
    if (!record.awaiting)
      return rejected(
        "NOT_AWAITING",
        `${what} awaits no decision: its approved definition is the one listed`,
      );
    if (record.awaiting.digest !== item.digest)
      return rejected(
        "STALE_REVIEW",
        `${what} changed again since it was reviewed (${item.digest.slice(0, 19)}… reviewed, ${record.awaiting.digest.slice(0, 19)}… now); review it again`,
      );
  }
  return accepted([
    command.type === "ApproveDefinitions"
      ? {
          type: "DefinitionsApproved",
          v,
          ...at,
          extension: key,
          items: command.items,
          by: command.by,
        }
      : {
          type: "DefinitionsRejected",
          v,
          ...at,
          extension: key,
          items: command.items,
          by: command.by,
          reason: command.reason ?? null,
        },
  ]);
}
