import { canonicalJson, type State } from "@toolledger/core";
import { sideBySide } from "../../output/sideBySide.js";
import { revealHidden } from "../../pins/revealHidden.js";
import type { AnyEvent } from "../eventDescription.js";
import { h } from "./dom.js";

const pretty = (definition: unknown) =>
  revealHidden(JSON.stringify(JSON.parse(canonicalJson(definition)), null, 2));

/**
 * P2/P3 in the detail panel: for each definition of a `DefinitionsChanged`, the approved one
 * (from the state before it) and the new one side by side, hidden characters shown, and the
 * findings with what they decode to. Null for any other event.
 */
export function pinDiff(event: AnyEvent, before: State): HTMLElement | null {
  if (event.type !== "DefinitionsChanged" || !Array.isArray(event.items)) return null;
  const key = String(event.extension ?? "");
  const pins = Object.hasOwn(before.pinning, key) ? before.pinning[key] : undefined;
  const blocks = (event.items as Record<string, unknown>[]).map((item) => {
    const id = `${String(item.kind)}:${String(item.name)}`;
    const record = pins && Object.hasOwn(pins.records, id) ? pins.records[id] : undefined;
    const approved = record?.approved?.definition;
    const findings = Array.isArray(item.findings)
      ? (item.findings as Record<string, unknown>[])
      : [];
    return h(
      "div",
      { class: "pin-diff", "data-testid": "pin-diff" },
      h("h3", {}, `${String(item.kind)} ${String(item.name)}: ${String(item.status)}`),
      h(
        "pre",
        { class: "json" },
        approved === undefined
          ? `nothing of this name was approved; what the server lists:\n${pretty(item.definition)}`
          : sideBySide(pretty(approved), pretty(item.definition), {
              leftLabel: "approved (what the model sees)",
              rightLabel: "awaiting approval",
              width: 140,
            }),
      ),
      findings.length > 0
        ? h(
            "ul",
            { class: "changes mono", "data-testid": "pin-findings" },
            ...findings.map((f) =>
              h(
                "li",
                {},
                `${String(f.check)} at ${String(f.field)}:${String(f.index)}: ${revealHidden(String(f.detail))}${f.decoded === undefined ? "" : ` — decoded: ${JSON.stringify(revealHidden(String(f.decoded)))}`}`,
              ),
            ),
          )
        : null,
    );
  });
  return h("div", {}, ...blocks);
}
