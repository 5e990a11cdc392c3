import { describe, expect, it } from "vitest";
import { EventStoreError } from "./eventStore.js";

describe("EventStoreError", () => {
  it("keeps the library's advice apart, so an application can say it in its own terms (issue 34)", () => {
    const advice = "make it writable, or open it with readOnly to read it";
    const e = new EventStoreError(
      "STORE_READ_ONLY",
      `/x/s.db: cannot write to the event store: the file is read-only; ${advice}`,
      { advice },
    );
    expect(e.message).toContain("open it with readOnly");
    expect(e.advice).toBe(advice);
    expect(e.problem).toBe("/x/s.db: cannot write to the event store: the file is read-only");
    // Without advice, or with advice the message does not end with, the problem is the message.
    expect(new EventStoreError("IO_ERROR", "disk full").problem).toBe("disk full");
    expect(new EventStoreError("IO_ERROR", "disk full", { advice: "retry" }).problem).toBe(
      "disk full",
    );
    const cause = new Error("low level");
    expect(new EventStoreError("IO_ERROR", "x", { cause }).cause).toBe(cause);
  });
});
