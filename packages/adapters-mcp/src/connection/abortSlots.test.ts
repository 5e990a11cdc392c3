import { describe, expect, it } from "vitest";
import { armAbortSlot, onAbort } from "./abortSlots.js";

// Issue 20 (bench 5a): a request's abort listener takes a slot armed ahead of need; what it
// is told, and when, is what an EventTarget listener with { once: true } is told.

describe("abort slots", () => {
  it("an armed signal calls its slot's listener once, and not once stopped", () => {
    const armed = new AbortController();
    armAbortSlot(armed.signal);
    const calls: string[] = [];
    const stopFirst = onAbort(armed.signal, () => calls.push("first"));
    stopFirst();
    onAbort(armed.signal, () => calls.push("second"));
    // The slot is taken: another listener goes to the EventTarget, and is told too.
    onAbort(armed.signal, () => calls.push("third"));
    armed.abort("stop");
    armed.abort("again");
    expect(calls.sort()).toEqual(["second", "third"]);
  });

  it("a signal nobody armed is listened to the EventTarget's way, and can stop", () => {
    const plain = new AbortController();
    const calls: string[] = [];
    const stop = onAbort(plain.signal, () => calls.push("stopped"));
    onAbort(plain.signal, () => calls.push("kept"));
    stop();
    plain.abort();
    expect(calls).toEqual(["kept"]);
  });

  it("a slot stopped by a listener that no longer holds it is left to its holder", () => {
    const armed = new AbortController();
    armAbortSlot(armed.signal);
    const calls: string[] = [];
    const stopOld = onAbort(armed.signal, () => calls.push("old"));
    stopOld();
    onAbort(armed.signal, () => calls.push("new"));
    stopOld();
    armed.abort();
    expect(calls).toEqual(["new"]);
  });
});
