import { stringify } from "yaml";
import { GATEWAY_ENTRY_NAME, type HostClient } from "./hostClients.js";
import { readServerEntries, rewriteServers, type ServerEntry } from "./rewriteServers.js";

export interface InstallPlan {
  /** The host's config as it will be: its servers replaced by the gateway's entry. */
  after: string;
  /** The moved servers, in the host's own format, for `serve --config`. */
  serversText: string;
  moved: string[];
  /** Servers left in the host's config, each with why. */
  kept: { name: string; why: string }[];
}

export class InstallRefused extends Error {}

/**
 * What `install` changes, decided on the text alone: every server toolledger can run moves
 * to the servers file; the host keeps the ones it runs itself (goose's builtin, platform,
 * frontend and inline Python extensions), disabled ones (so the host can still enable them),
 * and VS Code servers that need an input only VS Code can prompt for.
 */
export function planInstall(
  client: HostClient,
  text: string,
  gateway: { command: string; args: readonly string[] },
  /** File-wide settings that keep the servers' meaning in their new file (`workspace_folder`, `inherit_env`). */
  settings: Record<string, unknown> = {},
): InstallPlan {
  const entries = readServerEntries(text, client.format);
  if (entries.some((e) => e.name === GATEWAY_ENTRY_NAME)) {
    throw new InstallRefused(
      `it already has a server named "${GATEWAY_ENTRY_NAME}"; run \`toolledger uninstall ${client.name}\` first, or rename that server`,
    );
  }
  const moved: ServerEntry[] = [];
  const kept: InstallPlan["kept"] = [];
  for (const entry of entries) {
    const why = keepReason(client, entry.value);
    if (why === null) moved.push(entry);
    else kept.push({ name: entry.name, why });
  }
  const after = rewriteServers(text, client.format, {
    remove: moved.map((e) => e.name),
    add: [{ name: GATEWAY_ENTRY_NAME, value: client.gatewayEntry(gateway.command, gateway.args) }],
  });
  return {
    after,
    serversText: serversFile(client, moved, settings),
    moved: moved.map((e) => e.name),
    kept,
  };
}

/** The servers file: the host's own format, holding only the moved entries. */
export function serversFile(
  client: HostClient,
  entries: readonly ServerEntry[],
  settings: Record<string, unknown> = {},
): string {
  const head = Object.keys(settings).length > 0 ? { toolledger: settings } : {};
  if (client.format.kind === "yaml") {
    const text = Object.keys(head).length > 0 ? stringify(head) : "";
    return rewriteServers(text, client.format, { remove: [], add: entries });
  }
  const map = Object.fromEntries(entries.map((e) => [e.name, e.value]));
  return `${JSON.stringify({ ...head, [client.format.key]: map }, null, 2)}\n`;
}

const GOOSE_SERVED = ["stdio", "streamable_http", "sse"];

function keepReason(client: HostClient, value: unknown): string | null {
  const entry = (typeof value === "object" && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  if (entry.enabled === false || entry.disabled === true)
    return `disabled in ${client.label}, which can still enable it`;
  if (client.format.kind === "yaml" && !GOOSE_SERVED.includes(String(entry.type)))
    return `a goose ${String(entry.type)} extension runs inside goose`;
  if (JSON.stringify(entry).includes("${input:"))
    return "uses a VS Code input (${input:…}) that only VS Code can prompt for";
  return null;
}
