import type { StoredEvent } from "@toolledger/core";
import { expect } from "vitest";

/** Positions are contiguous per stream (1, 2, …) and global positions strictly increase. */
export function assertLogInvariants(all: readonly StoredEvent[]): void {
  const next = new Map<string, number>();
  let previous = 0;
  for (const e of all) {
    expect(e.globalPosition).toBeGreaterThan(previous);
    previous = e.globalPosition;
    const expected = next.get(e.streamId) ?? 1;
    expect(e.streamPosition).toBe(expected);
    next.set(e.streamId, expected + 1);
  }
}
