import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join, sep } from "node:path";
import { parseConfig } from "../config/loadConfig.js";
import type { LoadedConfig } from "../config/serverConfig.js";
import { GATEWAY_ENTRY_NAME, HOST_CLIENTS, type HostClient } from "../install/hostClients.js";
import {
  type InstallRecord,
  installDirectory,
  RECORD_FILE,
  readInstallRecord,
} from "../install/installRecord.js";
import { readServerEntries } from "../install/rewriteServers.js";
import type { CliError } from "../program/cliError.js";
import type { Deps } from "../program/deps.js";
import { toCliError } from "../program/toCliError.js";
import type { DoctorFinding } from "./doctorFinding.js";

/** A config whose servers doctor starts, and whose they are (`cursor`, `cursor via toolledger`). */
export interface ServerSource {
  label: string;
  config: LoadedConfig;
}

/**
 * Each agent host's config: its user-level file and every file `install` recorded. Is the
 * gateway installed, does the command it runs exist (and stay put across upgrades), is the
 * moved servers file there? Returns the servers to check: behind the gateway where it is
 * installed, else the host's own.
 */
export function checkHosts(
  deps: Deps,
  unexpected: (error: CliError) => void = () => {},
): { findings: DoctorFinding[]; sources: ServerSource[] } {
  const findings: DoctorFinding[] = [];
  const sources: ServerSource[] = [];
  for (const client of HOST_CLIENTS) {
    const files = new Set([
      client.defaultPath(deps.env, deps.home),
      ...recordedFiles(client, deps),
    ]);
    for (const file of files) {
      const result = checkHost(client, file, deps, unexpected);
      findings.push(...result.findings);
      sources.push(...result.sources);
    }
  }
  return { findings, sources };
}

function checkHost(
  client: HostClient,
  file: string,
  deps: Deps,
  unexpected: (error: CliError) => void,
): { findings: DoctorFinding[]; sources: ServerSource[] } {
  const subject = `${client.name} ${file}`;
  const host = (status: DoctorFinding["status"], message: string, fix?: string): DoctorFinding => ({
    check: "host",
    subject,
    status,
    message,
    ...(fix === undefined ? {} : { fix }),
  });
  if (!existsSync(file)) return { findings: [host("skip", "no config file")], sources: [] };
  let text: string;
  let entries: ReturnType<typeof readServerEntries>;
  try {
    text = readFileSync(file, "utf8");
    entries = readServerEntries(text, client.format);
  } catch (error) {
    return {
      findings: [
        host(
          "fail",
          `cannot read it: ${(error as Error).message}`,
          `fix its syntax; ${client.label} cannot read it either`,
        ),
      ],
      sources: [],
    };
  }
  const record = readInstallRecord(installDirectory(client.name, file, deps.env, deps.home));
  const gateway = entries.find((e) => e.name === GATEWAY_ENTRY_NAME);
  if (gateway === undefined) {
    const findings = [
      host(
        "ok",
        `gateway not installed; ${entries.length} server(s) of its own`,
        entries.length > 0
          ? `\`toolledger install ${client.name}${isDefault(client, file, deps) ? "" : ` --file ${file}`}\` records them through the gateway`
          : undefined,
      ),
    ];
    if (record !== undefined)
      findings.push(
        host(
          "warn",
          `an install record says the gateway is installed, but the file has no "${GATEWAY_ENTRY_NAME}" entry`,
          `\`toolledger uninstall ${client.name}\` restores the backup, or remove ${installDirectory(client.name, file, deps.env, deps.home)}`,
        ),
      );
    const own = serversOf(client.name, file, text, deps, unexpected);
    return { findings: [...findings, ...own.findings], sources: own.sources };
  }
  const findings = [commandFinding(client, file, gateway.value, subject, deps)];
  if (record === undefined) {
    findings.push(
      host(
        "warn",
        "the gateway entry has no install record: `uninstall` cannot restore the original",
        "keep a copy of the file before editing it by hand",
      ),
    );
    return { findings, sources: [] };
  }
  findings.push(...behindGateway(record, host));
  if (!existsSync(record.serversFile)) return { findings, sources: [] };
  const moved = serversOf(
    `${client.name} via toolledger`,
    record.serversFile,
    readFileSync(record.serversFile, "utf8"),
    deps,
    unexpected,
  );
  return { findings: [...findings, ...moved.findings], sources: moved.sources };
}

/** The gateway entry's command: does it exist, and will it survive an upgrade or a move? */
function commandFinding(
  client: HostClient,
  file: string,
  value: unknown,
  subject: string,
  deps: Deps,
): DoctorFinding {
  const entry = value as { command?: unknown; cmd?: unknown; args?: unknown };
  const command =
    typeof entry.command === "string"
      ? entry.command
      : typeof entry.cmd === "string"
        ? entry.cmd
        : "";
  const args = Array.isArray(entry.args)
    ? entry.args.filter((a): a is string => typeof a === "string")
    : [];
  const reinstall = `\`toolledger uninstall ${client.name}${isDefault(client, file, deps) ? "" : ` --file ${file}`}\`, then install again: it writes a command that survives upgrades`;
  const finding = (
    status: DoctorFinding["status"],
    message: string,
    fix?: string,
  ): DoctorFinding => ({
    check: "host",
    subject,
    status,
    message,
    ...(fix === undefined ? {} : { fix }),
  });
  const shown = [command, ...args.slice(0, args.indexOf("serve") + 1 || 2)].join(" ");
  const resolved = resolveCommand(command, deps.env);
  if (resolved === undefined)
    return finding(
      "fail",
      `gateway installed, but its command ${JSON.stringify(command)} is not found`,
      reinstall,
    );
  // Before issue 25 install wrote `node <checkout>/packages/cli/dist/main.js serve …`.
  const script = /^node(\.exe)?$/.test(basename(command)) ? args[0] : undefined;
  if (script !== undefined) {
    if (!existsSync(script))
      return finding(
        "fail",
        `gateway installed, but it runs ${script}, which no longer exists`,
        reinstall,
      );
    if (!script.split(sep).includes("node_modules"))
      return finding(
        "warn",
        `gateway installed; it runs ${script}, inside a source checkout: moving or deleting the checkout breaks ${client.label}`,
        reinstall,
      );
    return finding(
      "warn",
      `gateway installed; it runs ${script}, a file an upgrade replaces`,
      reinstall,
    );
  }
  if (command === "npx")
    return finding(
      "ok",
      `gateway installed; runs ${shown} (npm fetches that version on the host's start)`,
    );
  return finding("ok", `gateway installed; runs ${shown}`);
}

/** The servers install moved: their file must be there for the gateway to start them. */
function behindGateway(
  record: InstallRecord,
  host: (status: DoctorFinding["status"], message: string, fix?: string) => DoctorFinding,
): DoctorFinding[] {
  if (!existsSync(record.serversFile))
    return [
      host(
        "fail",
        `the moved servers' file ${record.serversFile} is missing: the gateway starts none of them`,
        `\`toolledger uninstall ${record.client}\` restores the original config from ${record.backup}`,
      ),
    ];
  return [host("ok", `servers behind the gateway in ${record.serversFile}`)];
}

/**
 * A config's servers, read as \`serve\` reads them (variables expanded from this environment).
 * A file that does not read is a finding; one whose variables are unset here is a warning:
 * the host may start the gateway with them set.
 */
function serversOf(
  label: string,
  file: string,
  text: string,
  deps: Deps,
  unexpected: (error: CliError) => void,
): { findings: DoctorFinding[]; sources: ServerSource[] } {
  try {
    return { findings: [], sources: [{ label, config: parseConfig(file, text, deps) }] };
  } catch (error) {
    const e = toCliError(error);
    unexpected(e);
    const unset = e.hint?.startsWith("export ") === true;
    return {
      findings: [
        {
          check: "host",
          subject: `${label} ${file}`,
          status: unset ? "warn" : "fail",
          message: unset ? `servers not checked: ${e.message}` : e.message,
          ...(e.hint === undefined ? {} : { fix: e.hint }),
        },
      ],
      sources: [],
    };
  }
}

/** The host config files `install` recorded for this client (project configs included). */
function recordedFiles(client: HostClient, deps: Deps): string[] {
  const installs = join(installDirectory(client.name, "", deps.env, deps.home), "..");
  if (!existsSync(installs)) return [];
  const files: string[] = [];
  for (const name of readdirSync(installs)) {
    if (!name.startsWith(`${client.name}-`) || !existsSync(join(installs, name, RECORD_FILE)))
      continue;
    try {
      const record = readInstallRecord(join(installs, name));
      if (record !== undefined) files.push(record.file);
    } catch {
      // A damaged record is uninstall's to report.
    }
  }
  return files;
}

function isDefault(client: HostClient, file: string, deps: Deps): boolean {
  return client.defaultPath(deps.env, deps.home) === file;
}

/** An absolute command that exists and is executable, or a bare one found on the PATH. */
function resolveCommand(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (command === "") return undefined;
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  };
  if (isAbsolute(command)) return executable(command) ? command : undefined;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    for (const ext of process.platform === "win32" ? ["", ".cmd", ".exe"] : [""]) {
      const candidate = join(dir, command + ext);
      if (executable(candidate)) return candidate;
    }
  }
  return undefined;
}
