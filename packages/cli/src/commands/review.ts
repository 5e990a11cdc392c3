import { type DecidedItem, type PinRecord, recordStatus } from "@toolledger/core";
import { appendToLedger, findRecord, reviewer, serverPins } from "../pins/pinsLedger.js";
import { CliError } from "../program/cliError.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { openStore } from "../session/openStore.js";
import { kindOption } from "./diff.js";
import { approveSpec, rejectSpec } from "./pinsSpec.js";

/** `toolledger approve <server> [<tool>…]` (P6). */
export function approveCommand(args: readonly string[], deps: Deps): Promise<number> {
  return review("approve", args, deps);
}

/** `toolledger reject <server> [<tool>…]` (P6). */
export function rejectCommand(args: readonly string[], deps: Deps): Promise<number> {
  return review("reject", args, deps);
}

async function review(
  what: "approve" | "reject",
  args: readonly string[],
  deps: Deps,
): Promise<number> {
  const spec = what === "approve" ? approveSpec : rejectSpec;
  const cmd = startCommand(spec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const [server, ...names] = parsed.positionals as [string, ...string[]];
  const kind = kindOption(stringOption(parsed, "kind"), what);
  const by = reviewer(stringOption(parsed, "by"), deps);
  const reason = stringOption(parsed, "reason");
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = await openStore(location, "write");
  try {
    let chosen: PinRecord[] = [];
    let key = "";
    const { version } = await appendToLedger(
      store,
      (state) => {
        const found = serverPins(state, server);
        key = found.key;
        const awaiting = (r: PinRecord) =>
          r.awaiting !== null && (what === "approve" || recordStatus(r) !== "rejected");
        if (names.length === 0) {
          chosen = Object.values(found.pins.records).filter(
            (r) => awaiting(r) && (kind === undefined || r.kind === kind),
          );
        } else {
          chosen = names.map((n) => findRecord(found.key, found.pins, n, kind));
          const settled = chosen.filter((r) => !awaiting(r));
          if (settled.length > 0)
            throw new CliError(
              "conflict",
              `${settled.map((r) => r.name || "instructions").join(", ")} of ${found.key} await${settled.length === 1 ? "s" : ""} no ${what === "approve" ? "approval" : "decision"} (${settled.map(recordStatus).join(", ")})`,
              { hint: `\`toolledger pins ${found.key}\` shows what awaits` },
            );
        }
        if (chosen.length === 0)
          throw new CliError(
            "conflict",
            `nothing of ${found.key} awaits ${what === "approve" ? "approval" : "a decision"}`,
            {
              hint: `\`toolledger pins ${found.key}\` shows its definitions`,
            },
          );
        const items: DecidedItem[] = chosen.map((r) => ({
          kind: r.kind,
          name: r.name,
          digest: r.awaiting!.digest,
        }));
        return what === "approve"
          ? { type: "ApproveDefinitions", extension: found.key, items, by }
          : {
              type: "RejectDefinitions",
              extension: found.key,
              items,
              by,
              ...(reason === undefined ? {} : { reason }),
            };
      },
      deps.now,
    );
    const listed = chosen.map(
      (r) => `${r.name || "instructions"}${r.kind === "tool" ? "" : ` (${r.kind})`}`,
    );
    if (booleanOption(parsed, "json")) {
      o.json({
        server: key,
        decision: what === "approve" ? "approved" : "rejected",
        by,
        items: chosen.map((r) => ({ kind: r.kind, name: r.name, digest: r.awaiting!.digest })),
        ledgerVersion: version,
      });
      return EXIT.ok;
    }
    o.data(
      `${what === "approve" ? "approved" : "rejected"} ${listed.length} definition(s) of ${key} by ${by}: ${listed.join(", ")}`,
    );
    o.note(
      what === "approve"
        ? "a gateway serving this server applies it within a second; its clients get the new definitions"
        : "the rejected definitions stay out of the model's view until the server lists an approved one again",
    );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
