/**
 * Whether two JSON values are equal (object key order aside). Used to keep the objects of an
 * earlier fetch when a refetch lists the same tool again: the new copy then dies young
 * instead of replacing an old one in the old generation. Runs on every tool of a refetch,
 * so it reads keys with `for…in` and plain property reads (parsed JSON has no inherited
 * enumerable keys; an inherited read can only make it answer "different").
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
    count++;
    const v = y[key];
    // A key missing from `y` reads as undefined there; JSON values are never undefined.
    if (v === undefined || !sameJson(x[key], v)) return false;
  }
  for (const _ in y) count--;
  return count === 0;
}
