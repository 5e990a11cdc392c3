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

/**
 * `sameJson` for two MCP tools: the fields every tool has are read by name (monomorphic
 * loads, an early "no" on a changed description), the rest generically.
 */
export function sameTool(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  if (a.name !== b.name || a.description !== b.description || a.title !== b.title) return false;
  if (!sameSchema(a.inputSchema, b.inputSchema)) return false;
  let count = 0;
  for (const key in a) {
    count++;
    if (key === "name" || key === "description" || key === "title" || key === "inputSchema")
      continue;
    const v = b[key];
    if (v === undefined || !sameJson(a[key], v)) return false;
  }
  for (const _ in b) count--;
  return count === 0;
}

/** `sameJson` for an object schema: `type`, `properties` and `required` read by name. */
function sameSchema(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) return sameJson(a, b);
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  if (x.type !== y.type) return false;
  if (!sameJson(x.properties, y.properties) || !sameJson(x.required, y.required)) return false;
  let count = 0;
  for (const key in x) {
    count++;
    if (key === "type" || key === "properties" || key === "required") continue;
    const v = y[key];
    if (v === undefined || !sameJson(x[key], v)) return false;
  }
  for (const _ in y) count--;
  return count === 0;
}
