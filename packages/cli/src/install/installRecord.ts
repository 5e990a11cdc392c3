import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import type { ClientName } from "./hostClients.js";

/** What `install` did, so that `uninstall` can undo it exactly. */
export const InstallRecordSchema = z.object({
  client: z.string(),
  /** The host's config file. */
  file: z.string(),
  /** Its bytes before the install, kept beside it. */
  backup: z.string(),
  /** The moved servers, read by the gateway's `serve --config`. */
  serversFile: z.string(),
  /** sha256 of what install wrote to `file` and to `serversFile` (unchanged since: restore exactly). */
  installedSha256: z.string(),
  serversSha256: z.string(),
  moved: z.array(z.string()),
  installedAt: z.string(),
});
export type InstallRecord = z.infer<typeof InstallRecordSchema>;

export const sha256 = (data: string | Buffer): string =>
  createHash("sha256").update(data).digest("hex");

/**
 * Where toolledger keeps one install: `$XDG_CONFIG_HOME/toolledger/installs/<client>-<hash of
 * the host's config path>/`, so installs into a user config and a project config never meet.
 */
export function installDirectory(
  client: ClientName,
  file: string,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): string {
  const configHome =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== "" ? env.XDG_CONFIG_HOME : join(home, ".config");
  return join(configHome, "toolledger", "installs", `${client}-${sha256(file).slice(0, 8)}`);
}

export const RECORD_FILE = "install.json";

export function readInstallRecord(dir: string): InstallRecord | undefined {
  const path = join(dir, RECORD_FILE);
  if (!existsSync(path)) return undefined;
  return InstallRecordSchema.parse(JSON.parse(readFileSync(path, "utf8")));
}

/**
 * Replaces `file` with `data` in one step (a temporary file renamed over it), keeping the
 * original's permissions: a host reading its config at that moment sees the old or the new
 * file, never half of one.
 */
export function replaceFile(file: string, data: string | Buffer): void {
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o644;
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${randomUUID().slice(0, 8)}.tmp`;
  writeFileSync(temp, data, { mode });
  renameSync(temp, file);
}
