/**
 * A JSON value as one canonical text (RFC 8785's shape): object keys sorted by UTF-16 code
 * units at every level, no white space, strings and numbers as `JSON.stringify` writes them.
 * Two definitions that differ only in key order have the same text, hence the same digest.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    // undefined (a missing optional field) is written as null only inside arrays, as JSON does.
    return JSON.stringify(value) ?? "null";
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(",")}}`;
}
