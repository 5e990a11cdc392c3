import type { JSONRPCRequest } from "@modelcontextprotocol/server";

const requestKeys = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * Whether `value` is one JSON-RPC request, other than initialize, that `JSONRPCRequestSchema`
 * accepts unchanged: only the schema's keys, an integer or string id, params a plain object
 * without `_meta` (or an own `__proto__` key). Anything else (batches, notifications, `_meta`,
 * odd ids) goes through zod.
 */
export function isPlainRequest(value: unknown): value is JSONRPCRequest {
  if (
    typeof value !== "object" ||
    value === null ||
    Object.getPrototypeOf(value) !== Object.prototype
  )
    return false;
  const m = value as Record<string, unknown>;
  for (const key in m) if (!requestKeys.has(key)) return false;
  if (m.jsonrpc !== "2.0" || typeof m.method !== "string" || m.method === "initialize")
    return false;
  const id = m.id;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isSafeInteger(id))) return false;
  if (!("params" in m)) return true;
  const params = m.params;
  return (
    typeof params === "object" &&
    params !== null &&
    Object.getPrototypeOf(params) === Object.prototype &&
    !("_meta" in params) &&
    // JSON.parse makes `"__proto__"` an own key; zod's copy of params would not keep it as one.
    !Object.hasOwn(params, "__proto__")
  );
}
