/**
 * One abort listener per signal, attached ahead of need. Issue 20 (bench 5a): Node's
 * EventTarget makes the first listener of a fresh AbortSignal cost a few microseconds to add
 * and remove, and a request adds one as it goes upstream and removes it as its reply comes
 * back, both on the path a client waits on. A signal's owner that makes it before it is needed
 * (`armAbortSlot`) attaches the one listener then; a request takes the slot and leaves it by
 * setting a field. Any other listener, and a signal nobody armed, take the EventTarget's way.
 */
interface Slot {
  listener: (() => void) | null;
}

const slots = new WeakMap<AbortSignal, Slot>();

/** Attaches `signal`'s slot now, while nothing waits. */
export function armAbortSlot(signal: AbortSignal): void {
  if (slots.has(signal) || signal.aborted) return;
  const slot: Slot = { listener: null };
  signal.addEventListener(
    "abort",
    () => {
      const listener = slot.listener;
      slot.listener = null;
      listener?.();
    },
    { once: true },
  );
  slots.set(signal, slot);
}

/** Calls `listener` once when `signal` aborts; returns what stops listening. */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  const slot = slots.get(signal);
  if (slot !== undefined && slot.listener === null) {
    slot.listener = listener;
    return () => {
      if (slot.listener === listener) slot.listener = null;
    };
  }
  signal.addEventListener("abort", listener, { once: true });
  return () => signal.removeEventListener("abort", listener);
}
