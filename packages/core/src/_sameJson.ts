/**
 * Whether two JSON values are equal (object key order aside). Used to keep the objects of an
 * earlier fetch when a refetch lists the same tool again: the new copy then dies young
 * instead of replacing an old one in the old generation.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const key in x) {
    if (!Object.hasOwn(x, key)) continue;
    count++;
    if (!Object.hasOwn(y, key) || !sameJson(x[key], y[key])) return false;
  }
  for (const key in y) if (Object.hasOwn(y, key)) count--;
  return count === 0;
}
