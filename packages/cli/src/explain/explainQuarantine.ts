import type { Classification } from "@toolledger/core";
import type { Reason } from "./explanation.js";

/** P2/P3: why a quarantined tool is not served as listed, in explain's words. */
export function explainQuarantine(
  publicName: string,
  c: Classification,
): { summary: string; reason: Omit<Reason, "positions"> } {
  const pin = c.pin;
  const awaiting = pin?.record?.awaiting;
  const current = awaiting && awaiting.digest === pin?.digest ? awaiting : null;
  const checks = current ? [...new Set(current.findings.map((f) => f.check))] : [];
  const flagged = checks.length > 0 ? `; checks flagged it (${checks.join(", ")})` : "";
  const review = `review it with \`toolledger diff ${publicName}\``;
  switch (pin?.status) {
    case "changed":
      return {
        summary: `${publicName} changed since it was approved: the model ${c.approved ? "sees the approved definition" : "does not see it"} and its calls are refused until the user approves the change`,
        reason: {
          rule: checks.length > 0 ? "P3" : "P2",
          text: `its server lists a definition whose digest is not the approved one (${pin.record?.approved?.by ?? "?"} approved ${pin.record?.approved?.digest.slice(0, 19) ?? "?"}…)${current && current.changes.length > 0 ? `; what changed: ${current.changes.join(", ")}` : ""}${flagged}; ${review}`,
        },
      };
    case "rejected":
      return {
        summary: `${publicName} was rejected by the user: it is not served and its calls are refused`,
        reason: { rule: "P6", text: `the digest its server lists was rejected; ${review}` },
      };
    default:
      return {
        summary: `${publicName} awaits the user's approval: it is not served and its calls are refused`,
        reason: {
          rule: checks.length > 0 ? "P3" : "P2",
          text: `${current?.renamedFrom ? `it is ${current.renamedFrom} under a new name` : checks.length > 0 && !pin?.record?.approved ? "flagged the first time it was listed" : "its server listed it after its definitions were pinned"}${flagged}; ${review}`,
        },
      };
  }
}
