import {
  canonicalJson,
  type PinKind,
  PinKindSchema,
  type PinRecord,
  recordStatus,
} from "@toolledger/core";
import { shortTime } from "../output/output.js";
import { sideBySide } from "../output/sideBySide.js";
import { unifiedDiff } from "../output/unifiedDiff.js";
import { findRecord, loadLedger, serverPins } from "../pins/pinsLedger.js";
import { revealHidden } from "../pins/revealHidden.js";
import { usageError } from "../program/cliError.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { openStore } from "../session/openStore.js";
import { diffSpec } from "./pinsSpec.js";

/** `toolledger diff <tool>`: the approved definition and the one awaiting approval (P2, P3). */
export async function diffCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(diffSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const kind = kindOption(stringOption(parsed, "kind"), "diff");
  const [first, second] = parsed.positionals as [string, string | undefined];
  const split = first.indexOf("__");
  if (second === undefined && split <= 0)
    throw usageError(
      `diff: ${JSON.stringify(first)} is not <server>__<tool>; give the server and the name as two arguments`,
      "diff",
    );
  const server = second === undefined ? first.slice(0, split) : first;
  const name = second ?? first;
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = await openStore(location, "read");
  try {
    const { state } = await loadLedger(store);
    const { key, pins } = serverPins(state, server);
    const record = findRecord(key, pins, name, kind);
    const status = recordStatus(record);
    if (booleanOption(parsed, "json")) {
      o.json({
        server: key,
        kind: record.kind,
        name: record.name,
        status,
        approved: record.approved,
        awaiting: record.awaiting,
        rejected: record.rejected,
      });
      return EXIT.ok;
    }
    o.data(render(key, record, Number(deps.env.COLUMNS) || 160, booleanOption(parsed, "unified")));
    if (status === "changed" || status === "pending")
      o.note(
        `approve it with \`toolledger approve ${key} ${record.name || "instructions"}${kind ? ` --kind ${kind}` : ""}\`, or reject it with \`toolledger reject ${key} ${record.name || "instructions"}\``,
      );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

export function kindOption(value: string | undefined, command: string): PinKind | undefined {
  if (value === undefined) return undefined;
  const parsed = PinKindSchema.safeParse(value);
  if (!parsed.success)
    throw usageError(
      `${command}: --kind must be one of ${PinKindSchema.options.join(", ")}, got ${JSON.stringify(value)}`,
      command,
    );
  return parsed.data;
}

/** Pretty JSON with keys sorted (as the digest reads them) and hidden characters shown. */
function pretty(definition: unknown): string {
  return revealHidden(JSON.stringify(JSON.parse(canonicalJson(definition)), null, 2));
}

function render(key: string, record: PinRecord, width: number, unified: boolean): string {
  const status = recordStatus(record);
  const title = `${record.kind} ${record.name === "" ? "(instructions)" : record.name} of ${key}: ${status}`;
  const lines = [title];
  const approved = record.approved;
  const awaiting = record.awaiting;
  if (approved)
    lines.push(
      `approved: ${approved.digest} by ${approved.by}${approved.at ? ` at ${shortTime(approved.at)}` : ""}`,
    );
  if (awaiting) {
    lines.push(
      `${status === "rejected" ? "rejected" : awaiting.status === "changed" ? "changed" : "pending"}: ${awaiting.digest}${awaiting.at ? ` since ${shortTime(awaiting.at)}` : ""}`,
    );
    if (awaiting.changes.length > 0) lines.push(`what changed: ${awaiting.changes.join(", ")}`);
    if (awaiting.renamedFrom)
      lines.push(`renamed: it equals ${awaiting.renamedFrom}, approved under that name`);
  }
  lines.push("");
  if (approved && awaiting) {
    lines.push(
      unified
        ? unifiedDiff(pretty(approved.definition), pretty(awaiting.definition), {
            oldLabel: "approved",
            newLabel: status === "rejected" ? "rejected" : "awaiting approval",
          })
        : sideBySide(pretty(approved.definition), pretty(awaiting.definition), {
            leftLabel: "approved (what the model sees)",
            rightLabel:
              status === "rejected" ? "rejected" : "awaiting approval (what the server lists)",
            width,
          }),
    );
  } else if (awaiting) {
    lines.push(
      "nothing of this name was approved; what the server lists:",
      pretty(awaiting.definition),
      "",
    );
  } else if (approved) {
    lines.push(
      "nothing awaits a decision; the approved definition:",
      pretty(approved.definition),
      "",
    );
  }
  const findings = awaiting?.findings ?? [];
  if (findings.length > 0) {
    lines.push(`findings (${findings.length}):`);
    for (const f of findings) {
      lines.push(`  ${f.check} at ${f.field || "(text)"}:${f.index}: ${revealHidden(f.detail)}`);
      lines.push(`    ${revealHidden(f.excerpt)}`);
      if (f.decoded !== undefined)
        lines.push(`    decoded: ${JSON.stringify(revealHidden(f.decoded))}`);
    }
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
