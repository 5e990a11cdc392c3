/** What `${…}` may refer to while a config file is read. */
export interface VariableScope {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  /** `${workspaceFolder}`: the folder holding `.vscode/` or `.cursor/`, else the config file's folder. */
  workspaceFolder: string;
}

export type Expansion =
  | {
      ok: true;
      value: string;
      /** Values that came from environment variables (secrets unless they name a place). */
      secrets: string[];
    }
  | { ok: false; variable: string; message: string };

// Variables that name places or the user, not credentials: never treated as secrets.
const NOT_SECRET = new Set(["HOME", "USER", "LOGNAME", "PWD", "TMPDIR", "SHELL", "PATH"]);

const REFERENCE = /\$\{([^}]*)\}/g;

/**
 * Expands the variables the hosts expand in server configs: `${VAR}` and `${VAR:-default}`
 * (Claude Code), `${env:VAR}`, `${userHome}`, `${workspaceFolder}`,
 * `${workspaceFolderBasename}`, `${pathSeparator}` and `${/}` (Cursor, VS Code). A variable
 * that is not set is refused (never replaced by ""), naming it; `$` without `{` is literal.
 */
export function expandVariables(text: string, scope: VariableScope): Expansion {
  const secrets: string[] = [];
  let failure: { variable: string; message: string } | null = null;
  const value = text.replace(REFERENCE, (whole, inner: string) => {
    if (failure) return whole;
    const resolved = resolve(inner.trim(), scope);
    if (!resolved.ok) {
      failure = { variable: resolved.variable, message: resolved.message };
      return whole;
    }
    if (resolved.secret && resolved.value !== "") secrets.push(resolved.value);
    return resolved.value;
  });
  if (failure) return { ok: false, ...(failure as { variable: string; message: string }) };
  return { ok: true, value, secrets };
}

type Resolved =
  | { ok: true; value: string; secret: boolean }
  | { ok: false; variable: string; message: string };

function resolve(inner: string, scope: VariableScope): Resolved {
  switch (inner) {
    case "userHome":
      return { ok: true, value: scope.home, secret: false };
    case "workspaceFolder":
      return { ok: true, value: scope.workspaceFolder, secret: false };
    case "workspaceFolderBasename":
      return {
        ok: true,
        value: scope.workspaceFolder.split(/[\\/]/).filter(Boolean).at(-1) ?? "",
        secret: false,
      };
    case "pathSeparator":
    case "/":
      return { ok: true, value: "/", secret: false };
  }
  if (inner.startsWith("input:")) {
    return {
      ok: false,
      variable: `\${${inner}}`,
      message: `\${${inner}} is a VS Code input (VS Code prompts for it); toolledger cannot prompt while it serves`,
    };
  }
  const name = inner.startsWith("env:") ? inner.slice(4) : inner;
  const fallbackAt = name.indexOf(":-");
  const variable = fallbackAt === -1 ? name : name.slice(0, fallbackAt);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
    return {
      ok: false,
      variable: `\${${inner}}`,
      message: `\${${inner}} is not a variable reference toolledger knows (\${NAME}, \${env:NAME}, \${NAME:-default}, \${userHome}, \${workspaceFolder})`,
    };
  }
  const set = variable === "HOME" ? (scope.env.HOME ?? scope.home) : scope.env[variable];
  // `:-` as in the shell: the default also replaces an empty value.
  if (fallbackAt !== -1 && (set === undefined || set === ""))
    return { ok: true, value: name.slice(fallbackAt + 2), secret: false };
  if (set !== undefined) return { ok: true, value: set, secret: !NOT_SECRET.has(variable) };
  return {
    ok: false,
    variable,
    message: `environment variable ${variable} is not set`,
  };
}
