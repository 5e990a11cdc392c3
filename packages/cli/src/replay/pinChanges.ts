import type { ToolledgerEvent } from "@toolledger/core";
import type { Style } from "../output/style.js";

/** What a pin event did (P2–P6), as replay and the view say it. */
export type PinChange =
  | { kind: "pin_policy"; extension: string; policy: string }
  | { kind: "pins_carried"; extension: string; approved: number; awaiting: number }
  | { kind: "definitions_pinned"; extension: string; list: string; names: string[] }
  | {
      kind: "definition_changed";
      extension: string;
      name: string;
      itemKind: string;
      status: "changed" | "pending";
      changes: string[];
      checks: string[];
      renamedFrom: string | null;
    }
  | { kind: "definitions_coalescing"; extension: string }
  | { kind: "definitions_restored"; extension: string; names: string[] }
  | { kind: "definitions_approved"; extension: string; names: string[]; by: string }
  | {
      kind: "definitions_rejected";
      extension: string;
      names: string[];
      by: string;
      reason: string | null;
    };

const label = (i: { kind: string; name: string }) =>
  i.kind === "tool" ? i.name : i.kind === "instructions" ? "instructions" : `${i.name} (${i.kind})`;

/** The changes a pin event stands for: its point, whether or not the state moved. */
export function pinChanges(event: ToolledgerEvent): PinChange[] {
  switch (event.type) {
    case "PinPolicySet":
      return [{ kind: "pin_policy", extension: event.extension, policy: event.policy }];
    case "PinsCarried":
      return [
        {
          kind: "pins_carried",
          extension: event.extension,
          approved: event.records.filter((r) => r.approved !== null).length,
          awaiting: event.records.filter((r) => r.awaiting !== null).length,
        },
      ];
    case "DefinitionsPinned":
      return event.items.length === 0
        ? []
        : [
            {
              kind: "definitions_pinned",
              extension: event.extension,
              list: event.list,
              names: event.items.map(label),
            },
          ];
    case "DefinitionsChanged":
      return [
        ...event.items.map(
          (i): PinChange => ({
            kind: "definition_changed",
            extension: event.extension,
            name: label(i),
            itemKind: i.kind,
            status: i.status,
            changes: [...i.changes],
            checks: [...new Set(i.findings.map((f) => f.check))],
            renamedFrom: i.renamedFrom,
          }),
        ),
        ...(event.coalescing
          ? [{ kind: "definitions_coalescing" as const, extension: event.extension }]
          : []),
      ];
    case "DefinitionsRestored":
      return [
        { kind: "definitions_restored", extension: event.extension, names: event.items.map(label) },
      ];
    case "DefinitionsApproved":
      return [
        {
          kind: "definitions_approved",
          extension: event.extension,
          names: event.items.map(label),
          by: event.by,
        },
      ];
    case "DefinitionsRejected":
      return [
        {
          kind: "definitions_rejected",
          extension: event.extension,
          names: event.items.map(label),
          by: event.by,
          reason: event.reason,
        },
      ];
    default:
      return [];
  }
}

const LIMIT = 6;
const list = (names: readonly string[]) =>
  names.length <= LIMIT
    ? names.join(", ")
    : `${names.slice(0, LIMIT).join(", ")}, … (+${names.length - LIMIT})`;

/** One line per pin change, for replay's human output. */
export function formatPinChange(c: PinChange, style: Style): string {
  switch (c.kind) {
    case "pin_policy":
      return `pinning of ${c.extension}: ${c.policy}`;
    case "pins_carried":
      return `pins of ${c.extension} from the ledger: ${c.approved} approved, ${c.awaiting} awaiting a decision`;
    case "definitions_pinned":
      return `${c.names.length} ${c.list} definition(s) of ${c.extension} pinned at first use: ${list(c.names)}`;
    case "definition_changed": {
      const flagged = c.checks.length > 0 ? `; flagged: ${c.checks.join(", ")}` : "";
      return c.status === "changed"
        ? `${style.yellow("!")} ${c.extension}'s ${c.name} changed (${c.changes.join(", ")})${flagged}: awaits approval`
        : `${style.yellow("!")} ${c.extension}'s ${c.name} is new${c.renamedFrom ? ` (renamed from ${c.renamedFrom})` : ""}${flagged}: awaits approval`;
    }
    case "definitions_coalescing":
      return `${style.yellow("!")} ${c.extension} keeps changing: further changes are not recorded until a decision`;
    case "definitions_restored":
      return `${c.extension}'s ${list(c.names)} listed as approved again`;
    case "definitions_approved":
      return `${style.green("+")} ${c.extension}'s ${list(c.names)} approved by ${c.by}`;
    case "definitions_rejected":
      return `${style.red("-")} ${c.extension}'s ${list(c.names)} rejected by ${c.by}${c.reason ? ` (${c.reason})` : ""}`;
  }
}
