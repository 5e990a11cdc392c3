import type { ExtensionConfig } from "../extensionConfig.js";
import { oauthSecretValues } from "../oauth/oauthSettings.js";

/** Shorter values are not redacted: they would replace ordinary text everywhere. */
export const MIN_SECRET_LENGTH = 4;

/**
 * Config literals that are never credentials: redacting them would garble every message and
 * every tool description that uses the word (`"TRANSPORT": "stdio"`, `"LOG_LEVEL": "error"`).
 */
const NOT_SECRET = new Set([
  "true",
  "false",
  "yes",
  "no",
  "on",
  "off",
  "null",
  "none",
  "undefined",
  "auto",
  "default",
  "enabled",
  "disabled",
  "trace",
  "debug",
  "info",
  "warn",
  "warning",
  "error",
  "fatal",
  "silent",
  "verbose",
  "quiet",
  "production",
  "development",
  "staging",
  "test",
  "prod",
  "local",
  "localhost",
  "stdio",
  "http",
  "https",
  "sse",
  "streamable_http",
  "json",
  "text",
  "yaml",
  "utf8",
  "utf-8",
  "main",
  "master",
  "latest",
  "stable",
  "readonly",
  "read",
  "write",
]);

/**
 * Values that configure rather than authenticate: a short number (a port, a timeout, a
 * size), an absolute path, a URL (its credentials are taken out separately).
 */
function notSecret(value: string): boolean {
  return (
    NOT_SECRET.has(value.toLowerCase()) ||
    /^\d{1,6}$/.test(value) ||
    /^(?:\/|~\/|[A-Za-z]:[\\/])[^\s]*$/.test(value) ||
    /^[a-z][a-z0-9+.-]*:\/\/[^\s]*$/i.test(value)
  );
}

/** A flag whose value is a credential (`--api-key X`, `--token=X`). */
const CREDENTIAL_NAME = /key|token|secret|pass|pwd|auth|credential|bearer|jwt|session|cookie/i;
/** A flag whose value is an HTTP header line (`--header "Authorization: Bearer X"`, mcp-remote). */
const HEADER_FLAG = /^(?:-H|--header)$/;

/**
 * Every secret value of an extension's config: env and header values and their parts, the
 * values of variables expanded into it (`secrets`), credential-named variables of the
 * environment a host passes on (`baseEnv`), credential-like arguments, and the credentials a
 * URL carries. Values reach the adapter after `${VAR}` expansion, so expanded values count.
 */
export function configSecrets(config: ExtensionConfig): string[] {
  // Values of variables expanded into the command, args or URL (the config names them).
  const values: string[] = [...(config.secrets ?? [])];
  if (config.type === "stdio") {
    values.push(...Object.values(config.env ?? {}));
    // The environment a host passes on whole: its credentials, told by their names.
    for (const [name, value] of Object.entries(config.baseEnv ?? {}))
      if (CREDENTIAL_NAME.test(name)) values.push(value);
    values.push(...credentialArgs(config.args ?? []));
    values.push(...urlSecrets(config.command));
  } else {
    values.push(...Object.values(config.headers ?? {}));
    values.push(...urlSecrets(config.url));
    values.push(...oauthSecretValues(config.oauth));
  }
  return [...new Set(values.flatMap(secretParts))];
}

/**
 * A secret value and the parts a server may echo on their own: the credentials after an
 * auth scheme (`Bearer X` → X), Basic's `user:password` and password, `key=value` parameter
 * values (Digest, cookies, query strings), and a URL's password and credential parameters.
 * Values shorter than MIN_SECRET_LENGTH and plain config values (`notSecret`) are left out.
 */
export function secretParts(value: string): string[] {
  const parts = new Set<string>();
  const add = (part: string | undefined) => {
    const p = part?.trim();
    if (p && p.length >= MIN_SECRET_LENGTH && !notSecret(p)) parts.add(p);
  };
  add(value);
  const scheme = /^\s*([A-Za-z][\w.+-]*)\s+(\S(?:.*\S)?)\s*$/s.exec(value);
  if (scheme) {
    const credentials = scheme[2]!;
    add(credentials);
    if (scheme[1]!.toLowerCase() === "basic") {
      const decoded = decodeBase64Text(credentials);
      if (decoded?.includes(":")) {
        add(decoded);
        add(decoded.slice(decoded.indexOf(":") + 1));
      }
    }
  }
  for (const m of value.matchAll(/[\w.-]+\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,;&"]+))/g))
    add(m[1] ?? m[2]);
  for (const secret of urlSecrets(value)) add(secret);
  return [...parts];
}

/** Values of credential-like flags and of header flags, from a server's command line. */
function credentialArgs(args: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    values.push(...urlSecrets(arg));
    const eq = /^(-{1,2}[^=\s]+)=(.*)$/s.exec(arg);
    const name = eq ? eq[1]! : arg;
    const inline = eq ? eq[2]! : undefined;
    if (!name.startsWith("-")) continue;
    const next = inline ?? args[i + 1];
    if (next === undefined) continue;
    if (HEADER_FLAG.test(name)) {
      const colon = next.indexOf(":");
      values.push(colon === -1 ? next : next.slice(colon + 1));
    } else if (CREDENTIAL_NAME.test(name) && (inline !== undefined || !next.startsWith("-"))) {
      values.push(next);
    }
  }
  return values;
}

/** A URL's password (or its user when it has no password, as in token URLs) and credential parameters. */
function urlSecrets(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi)) {
    let url: URL;
    try {
      url = new URL(m[0]);
    } catch {
      continue;
    }
    const user = safeDecode(url.username);
    const password = safeDecode(url.password);
    if (password) out.push(password, url.password);
    else if (user) out.push(user, url.username);
    for (const [name, value] of url.searchParams) if (CREDENTIAL_NAME.test(name)) out.push(value);
  }
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function decodeBase64Text(text: string): string | null {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return null;
  const decoded = Buffer.from(text, "base64").toString("utf8");
  // Not base64 of text: the bytes did not decode to UTF-8.
  return decoded.includes("\uFFFD") ? null : decoded;
}
