import { describe, expect, it } from "vitest";
import { newEventId } from "./newEventId.js";

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("newEventId (UUID version 7, so a store's event-id index grows at its end)", () => {
  it("is a version 7 UUID whose first 48 bits are the time in milliseconds", () => {
    const before = Date.now();
    const id = newEventId();
    const after = Date.now();
    expect(id).toMatch(V7);
    const ms = Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after + 1);
  });

  it("sorts in the order made: within one millisecond, past 4,096 of them, and when the clock steps back", () => {
    const t = Date.now() + 60_000;
    const ids = [
      ...Array.from({ length: 5000 }, () => newEventId(t)),
      ...Array.from({ length: 10 }, () => newEventId(t - 5000)),
      ...Array.from({ length: 10 }, () => newEventId(t + 100)),
    ];
    for (const id of ids) expect(id).toMatch(V7);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
