/** Query parameters of a connection URL that carry secrets. */
const SECRET_PARAMS = ["password", "sslpassword", "sslkey"];

/**
 * A PostgreSQL connection URL fit for logs and error messages: the password (in the user
 * part or a `password` query parameter) replaced with `***`. Text that does not parse as a
 * URL is not shown at all.
 */
export function redactConnectionString(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "<the PostgreSQL connection string>";
  }
  if (parsed.password !== "") parsed.password = "***";
  for (const name of SECRET_PARAMS) {
    if (parsed.searchParams.has(name)) parsed.searchParams.set(name, "***");
  }
  return parsed.href;
}

/** The secrets of a connection URL (password, sslpassword), for scrubbing driver messages. */
export function connectionSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const secrets = [url];
  if (parsed.password !== "") {
    secrets.push(parsed.password, decodeURIComponent(parsed.password));
  }
  for (const name of SECRET_PARAMS) {
    const value = parsed.searchParams.get(name);
    if (value) secrets.push(value);
  }
  return [...new Set(secrets)].sort((a, b) => b.length - a.length);
}

/** `text` with every secret replaced by `***`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret !== "") out = out.replaceAll(secret, "***");
  return out;
}
