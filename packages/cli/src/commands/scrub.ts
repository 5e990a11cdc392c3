import { randomBytes, scryptSync } from "node:crypto";
import { Redactor } from "@toolledger/adapters-mcp";
import { readMaintenanceLog, scrubStore } from "@toolledger/store-sqlite";
import { formatTable } from "../output/formatTable.js";
import { shortTime } from "../output/output.js";
import { CliError } from "../program/cliError.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { requireSqliteFile, resolveDatabasePath } from "../session/databasePath.js";
import { readSecretValue } from "./readSecretValue.js";
import { scrubSpec } from "./scrubSpec.js";

/** Shorter values would rewrite ordinary text everywhere (the Redactor skips them too). */
const MIN_LENGTH = 4;

export async function scrubCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(scrubSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  requireSqliteFile(
    location,
    "scrub",
    "on PostgreSQL, remove the value with SQL as the database owner (the events table refuses UPDATE by trigger), then VACUUM FULL events",
  );
  const json = booleanOption(parsed, "json");
  if (booleanOption(parsed, "list")) {
    const records = readMaintenanceLog(location.path);
    if (json) o.json(records);
    else if (records.length === 0) o.note(`${location.path} was never scrubbed`);
    else {
      o.data(
        formatTable([
          ["#", "at", "action", "fingerprint", "events", "streams"],
          ...records.map((r) => [
            String(r.id),
            shortTime(r.at),
            r.action,
            String(r.detail.fingerprint ?? ""),
            String(r.detail.eventsChanged ?? r.detail.eventsDeleted ?? ""),
            ((r.detail.streams as string[] | undefined) ?? []).join(", "),
          ]),
        ]),
      );
    }
    return EXIT.ok;
  }
  const value = await readSecretValue(deps, stringOption(parsed, "from-env"), "scrub");
  if (value.length < MIN_LENGTH) {
    throw new CliError(
      "usage",
      `the value is ${value.length} character(s) long; scrub needs at least ${MIN_LENGTH}: a shorter one would rewrite ordinary text`,
    );
  }
  const redactor = Redactor.forValues([value]);
  const dryRun = booleanOption(parsed, "dry-run");
  const report = scrubStore(location.path, {
    redactor,
    forbidden: [value, JSON.stringify(value).slice(1, -1)],
    record: { fingerprint: fingerprint(value), toolledgerVersion: deps.version },
    dryRun,
    now: deps.now,
  });
  if (json) {
    o.json(report);
    return EXIT.ok;
  }
  const what =
    report.eventsChanged === 0
      ? "no event holds the value"
      : `${report.eventsChanged} event(s) in ${report.streams.length} stream(s) ${dryRun ? "hold" : "held"} the value (${report.streams.join(", ")})`;
  if (dryRun) {
    o.data(`${location.path}: ${what}; nothing was changed (dry run)`);
    return EXIT.ok;
  }
  o.data(
    `${location.path}: ${what}${report.eventsChanged > 0 ? "; rewritten with [redacted]" : ""}${report.snapshotsDropped > 0 ? `, ${report.snapshotsDropped} cached snapshot(s) dropped` : ""}`,
  );
  o.note(
    `toolledger: WAL truncated and file vacuumed; ${report.bytesVerified} bytes read back without the value; integrity_check ${report.integrity.join(", ")}${report.recordId !== null ? `; maintenance record #${report.recordId} (\`toolledger scrub --list\`)` : ""}`,
  );
  return EXIT.ok;
}

/**
 * What the maintenance record keeps of the value: a salted, deliberately slow hash, so the
 * record proves which value was scrubbed to someone who has it without giving it away.
 */
function fingerprint(value: string): string {
  const salt = randomBytes(16);
  const N = 1 << 15;
  const hash = scryptSync(value, salt, 32, { N, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return `scrypt$N=${N},r=8,p=1$${salt.toString("base64")}$${hash.toString("base64")}`;
}
