import type { RegisteredTool } from "../fold/state.js";
import type { PinVerdict } from "./pinVerdict.js";

/**
 * P2: what a refused call tells the model: that the tool awaits a person's approval (or was
 * rejected), and the commands the user runs. Never the unapproved text itself, nor a
 * finding's excerpt: that is what is kept from the model.
 */
export function quarantineMessage(tool: RegisteredTool, pin: PinVerdict): string {
  const server = tool.owner;
  const review = `the user can review it with \`toolledger diff ${tool.publicName}\` and approve it with \`toolledger approve ${server} ${tool.rawName}\``;
  const awaiting = pin.record?.awaiting;
  const current = awaiting && awaiting.digest === pin.digest ? awaiting : null;
  const flagged =
    current && current.findings.length > 0
      ? `; checks flagged it (${[...new Set(current.findings.map((f) => f.check))].join(", ")})`
      : "";
  switch (pin.status) {
    case "rejected":
      return `tool ${tool.wireName} cannot be called: the user rejected its current definition on server ${server}; it stays unavailable until the server lists an approved definition or the user approves this one`;
    case "changed": {
      const what = current && current.changes.length > 0 ? ` (${current.changes.join(", ")})` : "";
      return `tool ${tool.wireName} awaits the user's approval: its definition on server ${server} changed since it was approved${what}${flagged}; it cannot be called until then; ${review}`;
    }
    default: {
      const renamed = current?.renamedFrom
        ? ` (it is ${current.renamedFrom} under a new name)`
        : "";
      const why =
        current && current.findings.length > 0 && !current.renamedFrom
          ? `checks flagged its definition on server ${server} (${[...new Set(current.findings.map((f) => f.check))].join(", ")})`
          : `server ${server} listed it after its definitions were pinned${renamed}${flagged}`;
      return `tool ${tool.wireName} awaits the user's approval: ${why}; it cannot be called until then; ${review}`;
    }
  }
}
