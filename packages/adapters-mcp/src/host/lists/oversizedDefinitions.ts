import type { OversizedDefinition } from "@toolledger/core";

/**
 * V3: a listing split at the host's cap on one definition: what is recorded (in the server's
 * order) and what is reported instead, each with its size. A definition's size is its JSON
 * in UTF-8 bytes, as a client would read it.
 */
export function withinCap<T>(
  items: readonly T[],
  limit: number,
  nameOf: (item: T) => string,
  kind?: OversizedDefinition["kind"],
): { kept: T[]; oversized: OversizedDefinition[] } {
  const oversized: OversizedDefinition[] = [];
  let kept: T[] | null = null;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const json = JSON.stringify(item);
    // A UTF-16 code unit is at most 3 UTF-8 bytes: most definitions need no exact count.
    const bytes = json.length * 3 <= limit ? 0 : Buffer.byteLength(json, "utf8");
    if (bytes <= limit) {
      kept?.push(item);
      continue;
    }
    kept ??= items.slice(0, i);
    oversized.push({ name: nameOf(item), ...(kind ? { kind } : {}), bytes, limit });
  }
  return { kept: kept ?? [...items], oversized };
}
