/** At most this many differing paths are listed (P2: "what changed"). */
export const CHANGE_LIST_LIMIT = 20;

/**
 * P2: the JSON paths where two definitions differ, depth first in sorted key order:
 * `description`, `inputSchema.properties.sidenote (added)`, `annotations (removed)`.
 */
export function definitionChanges(before: unknown, after: unknown): string[] {
  const out: string[] = [];
  walk(before, after, "", out);
  return out;
}

function walk(a: unknown, b: unknown, path: string, out: string[]): void {
  if (out.length >= CHANGE_LIST_LIMIT) return;
  const objects = isRecord(a) && isRecord(b);
  const arrays = Array.isArray(a) && Array.isArray(b);
  if (objects) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      const at = path === "" ? key : `${path}.${key}`;
      if (!(key in a)) out.push(`${at} (added)`);
      else if (!(key in b)) out.push(`${at} (removed)`);
      else walk(a[key], b[key], at, out);
      if (out.length >= CHANGE_LIST_LIMIT) return;
    }
    return;
  }
  if (arrays) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const at = `${path}.${i}`;
      if (i >= a.length) out.push(`${at} (added)`);
      else if (i >= b.length) out.push(`${at} (removed)`);
      else walk(a[i], b[i], at, out);
      if (out.length >= CHANGE_LIST_LIMIT) return;
    }
    return;
  }
  if (!sameValue(a, b)) out.push(path === "" ? "(whole definition)" : path);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return JSON.stringify(a) === JSON.stringify(b);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
