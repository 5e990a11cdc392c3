import type { ToolledgerHost } from "@toolledger/adapters-mcp";
import { activePins } from "@toolledger/core";
import type { Output } from "../output/output.js";
import { whatAwaitingMeans } from "./awaitingApproval.js";

const LIMIT = 4;

function names(items: readonly { name: string; kind: string }[]): string {
  const shown = items
    .slice(0, LIMIT)
    .map((i) => (i.kind === "tool" ? i.name : `${i.name || "instructions"} (${i.kind})`));
  return `${shown.join(", ")}${items.length > LIMIT ? `, … (+${items.length - LIMIT})` : ""}`;
}

/** P2/P6 on `serve`'s stderr: what was pinned, what awaits approval (and why), who decided. */
export function reportPins(host: ToolledgerHost, o: Output): void {
  host.events$.subscribe(({ event: e }) => {
    if (e.type === "DefinitionsPinned" && e.items.length > 0) {
      o.note(
        `toolledger: pinned ${e.items.length} ${e.list === "instructions" ? "instructions" : e.list} definition(s) of ${e.extension} (first use)`,
      );
    } else if (e.type === "DefinitionsChanged") {
      const enforced = activePins(host.state, e.extension)?.policy === "quarantine";
      const first = e.items[0]!;
      const why = [
        ...new Set(
          e.items.map((i) =>
            i.findings.length > 0
              ? `flagged by ${[...new Set(i.findings.map((f) => f.check))].join(", ")}`
              : i.status === "changed"
                ? `changed: ${i.changes.slice(0, 2).join(", ")}`
                : i.renamedFrom
                  ? `renamed from ${i.renamedFrom}`
                  : "new",
          ),
        ),
      ].join("; ");
      o.note(
        `${o.err.yellow("warning:")} ${e.items.length} definition(s) of ${e.extension} ${enforced ? `await approval (${whatAwaitingMeans(e.items)})` : "are not approved (pinning warn: served as listed)"}: ${names(e.items)} (${why}); review with \`toolledger diff ${first.kind === "tool" ? `${e.extension}__${first.name}` : `${e.extension} ${first.name || "instructions"}`}\`${e.coalescing ? `; ${e.extension} keeps changing: further changes are not recorded until a decision` : ""}`,
      );
    } else if (e.type === "DefinitionsApproved") {
      o.note(`toolledger: ${names(e.items)} of ${e.extension} approved by ${e.by}`);
    } else if (e.type === "DefinitionsRejected") {
      o.note(
        `toolledger: ${names(e.items)} of ${e.extension} rejected by ${e.by}${e.reason ? ` (${e.reason})` : ""}`,
      );
    }
  });
}
