import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CliError, usageError } from "../program/cliError.js";
import { type ParsedArgs, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { findHostClient, HOST_CLIENTS, type HostClient } from "./hostClients.js";
import { installDirectory } from "./installRecord.js";

export interface InstallTarget {
  client: HostClient;
  /** The client's config file. */
  file: string;
  /** Where this install's record and servers file live. */
  dir: string;
}

/** The client named on the command line and its config file (`--file`, else its default). */
export function installTarget(parsed: ParsedArgs, deps: Deps, command: string): InstallTarget {
  const name = parsed.positionals[0] ?? "";
  const fileFlag = stringOption(parsed, "file");
  const client = findHostClient(name);
  if (!client) {
    throw usageError(
      `${command}: unknown client ${JSON.stringify(name)}; known: ${HOST_CLIENTS.map((c) => c.name).join(", ")}`,
      command,
    );
  }
  const file =
    fileFlag !== undefined && fileFlag !== ""
      ? resolve(deps.cwd, fileFlag)
      : client.defaultPath(deps.env, deps.home);
  return { client, file, dir: installDirectory(client.name, file, deps.env, deps.home) };
}

/** The client's config as bytes; a missing file names the path and the flag to pass. */
export function readClientConfig(target: InstallTarget): Buffer {
  try {
    return readFileSync(target.file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new CliError("notFound", `no ${target.client.label} config at ${target.file}`, {
        hint: `pass the file with --file <path> (for example a project's ${target.client.name === "vscode" ? ".vscode/mcp.json" : target.client.name === "cursor" ? ".cursor/mcp.json" : "config file"})`,
      });
    }
    throw error;
  }
}
