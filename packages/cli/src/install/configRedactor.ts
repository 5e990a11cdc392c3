import { type ExtensionConfig, Redactor } from "@toolledger/adapters-mcp";
import { isRecord } from "../config/isRecord.js";
import { readServerEntries, type ServersFormat } from "./rewriteServers.js";

/**
 * The redactor for the secrets written in host configs (every format's server entries, as
 * they stand in the text): env and header values, credential arguments, URL credentials and
 * OAuth client secrets, redacted as the log redacts them (`Redactor.forConfigs`, `[redacted]`).
 * A value that names a variable (`${TOKEN}`) is not a secret: its value is not in the file.
 * Text that does not parse contributes nothing (the command reports it elsewhere).
 */
export function configRedactor(texts: readonly string[], format: ServersFormat): Redactor {
  const configs: ExtensionConfig[] = [];
  for (const text of texts) {
    let entries: ReturnType<typeof readServerEntries>;
    try {
      entries = readServerEntries(text, format);
    } catch {
      continue;
    }
    for (const { name, value } of entries)
      if (isRecord(value)) configs.push(...asConfigs(name, value));
  }
  return Redactor.forConfigs(configs);
}

/** A raw entry as the adapter's configs, both transports (only the secret-bearing fields). */
function asConfigs(name: string, entry: Record<string, unknown>): ExtensionConfig[] {
  const command = literal(entry.command ?? entry.cmd) ?? "";
  const args = Array.isArray(entry.args) ? entry.args.flatMap((a) => literal(a) ?? []) : [];
  const env = literalMap(entry.env, entry.envs);
  const url = literal(entry.url ?? entry.uri ?? entry.serverUrl ?? entry.endpoint) ?? "";
  const headers = literalMap(entry.headers);
  const oauth = isRecord(entry.oauth) ? entry.oauth : {};
  const auth = isRecord(entry.auth) ? entry.auth : {};
  const clientSecret = literal(oauth.clientSecret ?? auth.CLIENT_SECRET);
  return [
    { type: "stdio", name, command, args, env },
    {
      type: "streamable_http",
      name,
      url,
      headers,
      ...(clientSecret === undefined ? {} : { oauth: { clientSecret } }),
    },
  ];
}

function literal(value: unknown): string | undefined {
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const text = String(value);
  return /\$\{[^}]*\}/.test(text) ? undefined : text;
}

function literalMap(...maps: unknown[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const map of maps) {
    if (!isRecord(map)) continue;
    for (const [key, value] of Object.entries(map)) {
      const v = literal(value);
      if (v !== undefined) out[key] = v;
    }
  }
  return out;
}
