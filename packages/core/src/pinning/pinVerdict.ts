import type { McpTool } from "../events/events.js";
import { get } from "../fold/records.js";
import type { RegisteredTool, State } from "../fold/state.js";
import type { PinKind } from "./pinEvents.js";
import { toolDigest } from "./pinnedDefinition.js";
import { type ApprovedDefinition, type ExtensionPins, type PinRecord, pinKey } from "./pinState.js";

/**
 * P2: where a listed definition stands. `unpinned`: its server is not pinned (policy off, or
 * a log from before pinning); `approved`: its digest is the approved one; `changed`: another
 * digest was approved; `pending`: none was; `rejected`: a person rejected this digest.
 */
export type PinStatus = "unpinned" | "approved" | "changed" | "pending" | "rejected";

export interface PinVerdict {
  status: PinStatus;
  /** P5: the server's policy quarantines what is not approved (`quarantine`); `warn` only records. */
  enforced: boolean;
  record: PinRecord | null;
  /** The listed definition's digest (null when unpinned). */
  digest: string | null;
}

const UNPINNED: PinVerdict = Object.freeze({
  status: "unpinned",
  enforced: false,
  record: null,
  digest: null,
});

/** The pins of a server whose policy pins it (quarantine or warn); undefined otherwise. */
export function activePins(state: State, owner: string): ExtensionPins | undefined {
  const pins = get(state.pinning, owner);
  return pins && (pins.policy === "quarantine" || pins.policy === "warn") ? pins : undefined;
}

/** P2: the verdict on a definition with `digest`, listed by `owner` as `kind` `name`. */
export function pinVerdict(
  state: State,
  owner: string,
  kind: PinKind,
  name: string,
  digest: string | (() => string),
): PinVerdict {
  const pins = activePins(state, owner);
  if (!pins) return UNPINNED;
  const d = typeof digest === "string" ? digest : digest();
  const record = get(pins.records, pinKey(kind, name)) ?? null;
  const enforced = pins.policy === "quarantine";
  const status =
    record?.approved?.digest === d
      ? "approved"
      : record?.rejected.includes(d)
        ? "rejected"
        : record?.approved
          ? "changed"
          : "pending";
  return { status, enforced, record, digest: d };
}

const verdicts = new WeakMap<RegisteredTool, { pinning: object; verdict: PinVerdict }>();

/** P2: a registered tool's verdict, memoised per tool and pins (both immutable). */
export function toolVerdict(state: State, tool: RegisteredTool): PinVerdict {
  if (!activePins(state, tool.owner)) return UNPINNED;
  const cached = verdicts.get(tool);
  if (cached?.pinning === state.pinning) return cached.verdict;
  const verdict = pinVerdict(state, tool.owner, "tool", tool.rawName, () => toolDigest(tool.raw));
  verdicts.set(tool, { pinning: state.pinning, verdict });
  return verdict;
}

const approvedTools = new WeakMap<ApprovedDefinition, RegisteredTool>();

/**
 * P2: a changed tool as the model keeps seeing it until a person approves the new one: the
 * approved definition under the tool's names (one object per approval, so what is served of
 * it is built once).
 */
export function approvedTool(tool: RegisteredTool, approved: ApprovedDefinition): RegisteredTool {
  const cached = approvedTools.get(approved);
  if (cached && cached.publicName === tool.publicName && cached.wireName === tool.wireName)
    return cached;
  const made: RegisteredTool = {
    publicName: tool.publicName,
    wireName: tool.wireName,
    rawName: tool.rawName,
    owner: tool.owner,
    raw: approved.definition as McpTool,
  };
  approvedTools.set(approved, made);
  return made;
}
