import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseConfig, workspaceFolder } from "../config/loadConfig.js";
import { resolveDeferral } from "../config/resolveDeferral.js";
import { configRedactor } from "../install/configRedactor.js";
import { confirmChange, printDiff } from "../install/confirmChange.js";
import { type GatewayCommand, gatewayCommand } from "../install/gatewayCommand.js";
import { installOAuthNotes } from "../install/installOAuthNotes.js";
import {
  type InstallRecord,
  RECORD_FILE,
  readInstallRecord,
  replaceFile,
  sha256,
} from "../install/installRecord.js";
import { installTarget, readClientConfig } from "../install/installTarget.js";
import { InstallRefused, planInstall } from "../install/planInstall.js";
import { readServerEntries } from "../install/rewriteServers.js";
import { unifiedDiff } from "../output/unifiedDiff.js";
import { CliError } from "../program/cliError.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { installSpec } from "./installSpec.js";

// dist/commands/install.js (or src/commands/install.ts under test) → the package's dist/main.js.
const CLI_MAIN = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "dist", "main.js");

/** `--command` as given (an executable that runs toolledger), else the installed binary or npx. */
function resolveGatewayCommand(given: string | undefined, deps: Deps): GatewayCommand {
  if (given === undefined || given === "")
    return gatewayCommand({ main: CLI_MAIN, version: deps.version, env: deps.env });
  const path = resolve(deps.cwd, given);
  const version = spawnSync(path, ["--version"], { encoding: "utf8", timeout: 15_000 });
  if (version.error || version.status !== 0 || !/^\d+\.\d+\.\d+/.test(version.stdout.trim())) {
    throw new CliError(
      "badInput",
      `--command ${given}: ${version.error?.message ?? `\`${path} --version\` printed ${JSON.stringify(version.stdout.trim() || version.stderr.trim())}`}`,
      {
        hint: "give an executable that runs toolledger (its `--version` prints the version), or leave --command out",
      },
    );
  }
  return {
    command: path,
    args: [],
    kind: "given",
    why: `${path} (--command, toolledger ${version.stdout.trim()}): the host runs it as given, so keep it where it is`,
  };
}

export async function installCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(installSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const target = installTarget(parsed, deps, "install");
  const { client, file, dir } = target;
  if (readInstallRecord(dir)) {
    throw new CliError("conflict", `toolledger is already installed in ${file}`, {
      hint: `run \`toolledger uninstall ${client.name}${stringOption(parsed, "file") ? ` --file ${file}` : ""}\` first`,
    });
  }
  const backup = `${file}.toolledger-backup`;
  const original = readClientConfig(target);
  if (existsSync(backup)) {
    throw new CliError("conflict", `a backup from an earlier install exists at ${backup}`, {
      hint: "compare it with the config; remove it once the config is as you want it, then install again",
    });
  }
  const text = original.toString("utf8");
  const db = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd).path;
  const fileEnv = client.format.kind === "yaml" ? safeFileEnv(file, text, deps) : {};
  const deferral = resolveDeferral(
    {
      deferral: stringOption(parsed, "deferral"),
      alwaysLoad: stringOption(parsed, "always-load"),
      budget: stringOption(parsed, "deferral-budget"),
    },
    deps.env,
    fileEnv,
    "install",
  );
  const serversFile = join(dir, client.serversFileName);
  const gateway = resolveGatewayCommand(stringOption(parsed, "command"), deps);
  const gatewayArgs = [
    ...gateway.args,
    "serve",
    "--config",
    serversFile,
    "--db",
    db,
    "--deferral",
    deferral.mode,
    ...(deferral.alwaysLoad.length > 0 ? ["--always-load", deferral.alwaysLoad.join(",")] : []),
    ...(deferral.budget === undefined ? [] : ["--deferral-budget", String(deferral.budget)]),
  ];
  let plan: ReturnType<typeof planInstall>;
  try {
    plan = planInstall(
      client,
      text,
      { command: gateway.command, args: gatewayArgs },
      serversSettings(client.name, file, deps.home),
    );
  } catch (error) {
    if (error instanceof InstallRefused)
      throw new CliError("conflict", `cannot install into ${file}: ${error.message}`);
    throw new CliError("badInput", `cannot read ${file}: ${(error as Error).message}`, {
      hint: "fix the file's syntax first (toolledger edits it in place, keeping everything else)",
    });
  }
  // The servers file must load as `serve` will read it (variables aside: they are read at start).
  parseConfig(serversFile, plan.serversText, { ...deps, structureOnly: true });

  o.note(
    `${client.label}: ${file}\n  moves ${plan.moved.length} server(s) to ${serversFile}: ${plan.moved.join(", ") || "none"}`,
  );
  for (const k of plan.kept) o.note(`  keeps ${k.name}: ${k.why}`);
  o.note(`  the host starts ${gateway.why}`);
  for (const note of installOAuthNotes(
    client,
    readServerEntries(plan.serversText, client.format),
    serversFile,
  ))
    o.note(note);
  o.note(`  the gateway records to ${db}, deferral ${deferral.mode}; backup at ${backup}`);
  // Env values, headers and tokens are the servers' secrets: the diff shows them as the log does.
  const redactor = configRedactor([text, plan.after], client.format);
  printDiff(
    o,
    redactor.redact(
      unifiedDiff(text, plan.after, { oldLabel: file, newLabel: `${file} (with toolledger)` }),
    ),
  );
  if (booleanOption(parsed, "dry-run")) return EXIT.ok;
  if (!(await confirmChange(deps, o, { yes: booleanOption(parsed, "yes"), command: "install" })))
    return EXIT.ok;

  // Servers file and record first, then the backup, then the client's config: every step
  // before the last leaves the client untouched.
  mkdirSync(dir, { recursive: true });
  writeFileSync(serversFile, plan.serversText, { mode: 0o600 });
  const record: InstallRecord = {
    client: client.name,
    file,
    backup,
    serversFile,
    installedSha256: sha256(plan.after),
    serversSha256: sha256(plan.serversText),
    moved: plan.moved,
    installedAt: deps.now().toISOString(),
  };
  writeFileSync(join(dir, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
  try {
    copyFileSync(file, backup);
    replaceFile(file, plan.after);
  } catch (error) {
    rmSync(join(dir, RECORD_FILE), { force: true });
    throw error;
  }
  o.note(
    `installed: restart ${client.label} to load toolledger; \`toolledger uninstall ${client.name}\` undoes it (${statSync(backup).size} bytes backed up)`,
  );
  return EXIT.ok;
}

/**
 * What the servers meant where they were, written into their new file: the project a
 * `.vscode/` or `.cursor/` config belongs to (`${workspaceFolder}`), and Claude Desktop's
 * small environment (its servers inherit only HOME, PATH, USER and the like).
 */
function serversSettings(client: string, file: string, home: string): Record<string, unknown> {
  const folder = workspaceFolder(file);
  const project = folder !== dirname(file) && folder !== home;
  return {
    ...(project ? { workspace_folder: folder } : {}),
    ...(client === "claude-desktop" ? { inherit_env: false } : {}),
  };
}

/** goose's own GOOSE_TOOL_DEFERRAL keys (D1) without refusing the install for an unrelated problem. */
function safeFileEnv(file: string, text: string, deps: Deps): Record<string, string> {
  try {
    return parseConfig(file, text, { ...deps, structureOnly: true }).fileEnv;
  } catch {
    return {};
  }
}
