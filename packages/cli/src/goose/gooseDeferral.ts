/**
 * Which tool requests of a goose session are deferred-loading requests, and what they ask
 * for. goose's deferred tool loading (agents/tool_deferral.rs, `GOOSE_TOOL_DEFERRAL`) serves
 * `extensionmanager__load_tools` with `{ names?: string[], query?: string }` (a name is a full
 * tool name or the part after the prefix) and answers with the schemas it loaded, one
 * `## <tool name>` heading each (`render`); toolledger's gateway serves `enable_tools` with
 * `{ names: string[] }` (D5), which a goose session sees under its extension's prefix.
 * Other names can be added (`--enable-tool`).
 */
export interface EnableMatcher {
  names: ReadonlySet<string>;
}

export const DEFAULT_ENABLE_TOOL_NAMES: readonly string[] = [
  "extensionmanager__load_tools",
  "enable_tools",
];

export function enableMatcher(extra: readonly string[] = []): EnableMatcher {
  return { names: new Set([...DEFAULT_ENABLE_TOOL_NAMES, ...extra]) };
}

export function isEnableRequest(matcher: EnableMatcher, name: string): boolean {
  if (matcher.names.has(name)) return true;
  // The gateway's enable_tools behind a goose extension prefix: `<ext>__enable_tools`.
  const i = name.indexOf("__");
  return i > 0 && name.slice(i + 2) === "enable_tools" && matcher.names.has("enable_tools");
}

/** The names a request asks for (`names`), and its free-text query when it has one. */
export function requestedNames(args: unknown): { names: string[]; query: string | null } {
  const a = args && typeof args === "object" ? (args as Record<string, unknown>) : {};
  const names = Array.isArray(a.names)
    ? a.names.filter((n): n is string => typeof n === "string")
    : [];
  return {
    names: names.map((n) => n.trim()).filter((n) => n !== ""),
    query: typeof a.query === "string" ? a.query : null,
  };
}

/** The tools a `load_tools` answer rendered (`## <name>` at the start of a line). */
export function loadedNames(responseText: string): string[] {
  const out: string[] = [];
  for (const m of responseText.matchAll(/^## (\S+)\s*$/gm))
    if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}
