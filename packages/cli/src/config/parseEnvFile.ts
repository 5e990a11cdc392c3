/**
 * A dotenv file as VS Code and Cursor read `envFile`: `KEY=value` lines, `export KEY=value`,
 * `#` comments, values optionally in single or double quotes (double quotes know `\n`).
 * Returns the variables, or the first line that is not an assignment.
 */
export function parseEnvFile(
  text: string,
): { ok: true; env: Record<string, string> } | { ok: false; line: number; message: string } {
  const env: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) return { ok: false, line: i + 1, message: "expected KEY=value" };
    const [, key, raw] = match as unknown as [string, string, string];
    env[key] = unquote(raw);
  }
  return { ok: true, env };
}

function unquote(raw: string): string {
  const quote = raw[0];
  if ((quote === '"' || quote === "'") && raw.length >= 2) {
    const end = raw.lastIndexOf(quote);
    if (end > 0) {
      const inner = raw.slice(1, end);
      return quote === '"' ? inner.replaceAll("\\n", "\n").replaceAll('\\"', '"') : inner;
    }
  }
  // An unquoted value ends at a ` #` comment.
  const comment = raw.search(/\s#/);
  return (comment === -1 ? raw : raw.slice(0, comment)).trim();
}
