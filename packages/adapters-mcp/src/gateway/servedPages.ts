import { createHash } from "node:crypto";
import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import { knownJson } from "./knownJson.js";
import { ProtocolError } from "./protocolError.js";

/**
 * V3: the most JSON (UTF-8 bytes) one page of a served list holds. The MCP SDK's stdio
 * client reads at most 10 MiB a message (and closes the connection above it); the rest of
 * the message (its envelope and `nextCursor`) stays well inside the 2 MiB left.
 */
export const DEFAULT_LIST_PAGE_BYTES = 8 * 1024 * 1024;

/** The lists the gateway serves, as their results name them. */
export type ServedList = "tools" | "prompts" | "resources" | "resourceTemplates";

/** One page of a served list: the items, and where the next page starts (absent: the last). */
export interface ServedPage<T> {
  items: readonly T[];
  nextCursor?: string;
}

/**
 * What a cursor says: which list, where the next page starts, and (hashed) the item served
 * last and the one the next page starts with.
 */
interface Cursor {
  l: ServedList;
  i: number;
  h: string;
  n: string;
}

/** Each item's JSON size (bytes), per list object: computed once for a list served in pages. */
const itemSizes = new WeakMap<object, Uint32Array>();
/** The JSON size of a whole list, per list object. */
const listSizes = new WeakMap<object, number>();

/**
 * V3: the page of `items` a request with `cursor` gets. A list whose JSON fits `budget` is
 * served whole (the same array, no cursor), as before paging existed; a longer one in pages
 * of at most `budget` bytes each (one item alone may exceed it: it is served on a page of its
 * own, never split or dropped). A cursor names the item served last and the next one (by
 * `keyOf`, hashed, so it stays short); the next page starts after the one, or else at the
 * other, wherever they are now, so a list that changed between two pages neither repeats
 * nor skips an item that stayed (unless both went). A cursor that is not one of this list's
 * is `-32602`, as MCP prescribes.
 */
export function servedPage<T>(
  list: ServedList,
  items: readonly T[],
  keyOf: (item: T) => string,
  cursor: string | undefined,
  budget: number = DEFAULT_LIST_PAGE_BYTES,
): ServedPage<T> {
  if (cursor === undefined && listBytes(items) <= budget) return { items };
  const start = cursor === undefined ? 0 : startOf(items, keyOf, decode(list, cursor));
  const sizes = sizesOf(items);
  // `[` and `]`, then each item and the comma before it.
  let bytes = 2;
  let end = start;
  while (end < items.length) {
    const next = sizes[end]! + (end > start ? 1 : 0);
    if (end > start && bytes + next > budget) break;
    bytes += next;
    end++;
  }
  const page = items.slice(start, end);
  if (end >= items.length) return { items: page };
  return {
    items: page,
    nextCursor: encode({
      l: list,
      i: end,
      h: hashOf(keyOf(items[end - 1]!)),
      n: hashOf(keyOf(items[end]!)),
    }),
  };
}

/** Where the page after `c` starts in `items` as they are now. */
function startOf<T>(items: readonly T[], keyOf: (item: T) => string, c: Cursor): number {
  // The common case: the list did not change since the page before.
  if (c.i > 0 && c.i <= items.length && hashOf(keyOf(items[c.i - 1]!)) === c.h) return c.i;
  const hashes = items.map((item) => hashOf(keyOf(item)));
  const last = hashes.indexOf(c.h);
  if (last !== -1) return last + 1;
  // The item served last is gone: the page starts with the one that was to come next.
  const next = hashes.indexOf(c.n);
  if (next !== -1) return next;
  // Both are gone: go on from the same position, as near as the list now allows.
  return Math.min(c.i, items.length);
}

function listBytes(items: readonly unknown[]): number {
  let bytes = listSizes.get(items);
  if (bytes === undefined) {
    bytes = Buffer.byteLength(knownJson(items) ?? JSON.stringify(items), "utf8");
    listSizes.set(items, bytes);
  }
  return bytes;
}

function sizesOf(items: readonly unknown[]): Uint32Array {
  let sizes = itemSizes.get(items);
  if (sizes === undefined) {
    sizes = new Uint32Array(items.length);
    for (let i = 0; i < items.length; i++)
      sizes[i] = Buffer.byteLength(JSON.stringify(items[i]), "utf8");
    itemSizes.set(items, sizes);
  }
  return sizes;
}

function hashOf(key: string): string {
  return createHash("sha256").update(key).digest("base64url").slice(0, 16);
}

function encode(c: Cursor): string {
  return Buffer.from(JSON.stringify(c), "utf8").toString("base64url");
}

function decode(list: ServedList, cursor: string): Cursor {
  let c: Partial<Cursor> | null = null;
  try {
    c = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<Cursor>;
  } catch {
    c = null;
  }
  if (
    c === null ||
    typeof c !== "object" ||
    c.l !== list ||
    !Number.isInteger(c.i) ||
    (c.i as number) < 1 ||
    typeof c.h !== "string" ||
    typeof c.n !== "string"
  ) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid cursor for ${method(list)}: ${JSON.stringify(cursor.length > 80 ? `${cursor.slice(0, 80)}…` : cursor)} is not a nextCursor this gateway gave for that list; list again without a cursor`,
    );
  }
  return c as Cursor;
}

function method(list: ServedList): string {
  return list === "resourceTemplates" ? "resources/templates/list" : `${list}/list`;
}
