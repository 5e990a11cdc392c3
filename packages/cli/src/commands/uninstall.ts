import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { configRedactor } from "../install/configRedactor.js";
import { confirmChange, printDiff } from "../install/confirmChange.js";
import { GATEWAY_ENTRY_NAME } from "../install/hostClients.js";
import { RECORD_FILE, readInstallRecord, replaceFile, sha256 } from "../install/installRecord.js";
import { installTarget, readClientConfig } from "../install/installTarget.js";
import { readServerEntries, rewriteServers } from "../install/rewriteServers.js";
import { unifiedDiff } from "../output/unifiedDiff.js";
import { CliError } from "../program/cliError.js";
import { booleanOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { uninstallSpec } from "./installSpec.js";

export async function uninstallCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(uninstallSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const target = installTarget(parsed, deps, "uninstall");
  const { client, file, dir } = target;
  const record = readInstallRecord(dir);
  if (!record) {
    throw new CliError("notFound", `toolledger is not installed in ${file} (no record in ${dir})`, {
      hint: "give the same client and --file as at install",
    });
  }
  const current = readClientConfig(target);
  const serversText = existsSync(record.serversFile)
    ? readFileSync(record.serversFile, "utf8")
    : null;
  const unchanged =
    sha256(current) === record.installedSha256 &&
    serversText !== null &&
    sha256(serversText) === record.serversSha256;
  let after: Buffer;
  if (unchanged && existsSync(record.backup)) {
    after = readFileSync(record.backup);
    o.note(`${client.label}: ${file}\n  restores the backup ${record.backup} exactly`);
  } else {
    if (serversText === null) {
      throw new CliError(
        "notFound",
        `the servers file ${record.serversFile} is gone, and ${file} changed since install`,
        {
          hint: `the original is in ${record.backup}; copy it back by hand if that is what you want`,
        },
      );
    }
    // Changed since install: keep those changes, put the servers back in place of the gateway.
    const servers = readServerEntries(serversText, client.format);
    const text = current.toString("utf8");
    const present = new Set(readServerEntries(text, client.format).map((e) => e.name));
    after = Buffer.from(
      rewriteServers(text, client.format, {
        remove: [GATEWAY_ENTRY_NAME],
        add: servers.filter((s) => !present.has(s.name)),
      }),
    );
    o.note(
      `${client.label}: ${file}\n  changed since install: keeps those changes and puts the ${servers.length} server(s) of ${record.serversFile} back in place of the gateway`,
    );
  }
  // The servers' secrets come back into the file: the diff shows them as the log does.
  const redactor = configRedactor(
    [
      current.toString("utf8"),
      after.toString("utf8"),
      ...(serversText === null ? [] : [serversText]),
    ],
    client.format,
  );
  printDiff(
    o,
    redactor.redact(
      unifiedDiff(current.toString("utf8"), after.toString("utf8"), {
        oldLabel: file,
        newLabel: `${file} (without toolledger)`,
      }),
    ),
  );
  if (booleanOption(parsed, "dry-run")) return EXIT.ok;
  if (!(await confirmChange(deps, o, { yes: booleanOption(parsed, "yes"), command: "uninstall" })))
    return EXIT.ok;
  replaceFile(file, after);
  // The config as it was before install is kept when the restored file is not it, under a
  // name of its own, so that the next install (which keeps a new backup) is not refused.
  const kept = !unchanged && existsSync(record.backup) ? keptBackupName(record.backup, deps) : null;
  if (kept !== null) renameSync(record.backup, kept);
  if (unchanged) rmSync(record.backup, { force: true });
  rmSync(record.serversFile, { force: true });
  rmSync(join(dir, RECORD_FILE), { force: true });
  rmSync(dir, { recursive: true, force: true });
  if (kept !== null)
    o.note(
      `kept ${file} as it was before install in ${kept} (your edits since install are in ${file}); remove it when you no longer need it`,
    );
  o.note(`uninstalled: restart ${client.label} to load its servers directly again`);
  return EXIT.ok;
}

/** `<file>.toolledger-backup-20261201-153746`, from the uninstall's time (never an existing file). */
function keptBackupName(backup: string, deps: Deps): string {
  const stamp = deps
    .now()
    .toISOString()
    .replace(/\.\d+Z$/, "")
    .replace(/[-:]/g, "")
    .replace("T", "-");
  let name = `${backup}-${stamp}`;
  for (let n = 2; existsSync(name); n++) name = `${backup}-${stamp}-${n}`;
  return name;
}
