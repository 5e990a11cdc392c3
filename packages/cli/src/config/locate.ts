import { type Document, isMap, type LineCounter } from "yaml";

export type Position = { line: number; col: number };
export interface Locate {
  /** Where the value at `path` starts (a missing field: where its object starts). */
  value: (path: readonly PropertyKey[]) => Position;
  /** Where the key of the last path segment is written. */
  key: (path: readonly PropertyKey[]) => Position;
}

/** The deepest node on `path` that exists (a missing field is reported where its object starts). */
export function position(
  doc: Document,
  lines: LineCounter,
  path: readonly PropertyKey[],
): Position {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n) as unknown[], true) as
      | { range?: [number, number, number] }
      | undefined;
    if (node && typeof node === "object" && node.range) return lines.linePos(node.range[0]);
    if (n === 0 && isMap(doc.contents) && doc.contents.range)
      return lines.linePos(doc.contents.range[0]);
  }
  return { line: 1, col: 1 };
}

export function keyPosition(
  doc: Document,
  lines: LineCounter,
  path: readonly PropertyKey[],
): Position | undefined {
  const parent = doc.getIn(path.slice(0, -1) as unknown[], true);
  if (!isMap(parent)) return undefined;
  const last = path.at(-1);
  for (const pair of parent.items) {
    const key = pair.key as { value?: unknown; range?: [number, number, number] } | null;
    if (key && key.value === last && key.range) return lines.linePos(key.range[0]);
  }
  return undefined;
}
