/** The scopes of an OAuth `scope` string (space-separated). */
export function splitScopes(scope: string | undefined): string[] {
  return (scope ?? "").split(/\s+/).filter(Boolean);
}

/** A1 scope selection: the configured scopes, else the challenge's, else none (the SDK then takes scopes_supported). */
export function selectScopes(configured: readonly string[], challenged: string[]): string[] {
  return configured.length > 0 ? union(configured, challenged) : challenged;
}

/**
 * A1 step-up: the scopes to ask for after a 403 `insufficient_scope`, or null when asking
 * cannot help (already granted, or a scope set already asked for or not granted in full).
 */
export function stepUpScopes(
  scope: string | undefined,
  options: {
    configured: readonly string[];
    granted: readonly string[];
    /** Scope sets (joined by a space) not to ask for again. */
    refused: (key: string) => boolean;
  },
): string[] | null {
  const asked = splitScopes(scope);
  const { granted } = options;
  if (asked.length === 0 || asked.every((s) => granted.includes(s))) return null;
  const scopes = union(selectScopes(options.configured, [...granted]), asked);
  return options.refused(scopes.join(" ")) ? null : scopes;
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}
