import { randomUUID } from "node:crypto";

let lastMs = 0;
let counter = 0;
/** `tttttttt-tttt-7` for `lastMs`: the part every id of that millisecond shares. */
let prefix = "";

/**
 * A new event id: a UUID version 7 (RFC 9562) — 48 bits of Unix milliseconds, a 12-bit
 * counter within the millisecond (RFC 9562 §6.2, method 1), the variant, and 62 random bits.
 * Ids made one after another sort in the order they were made (also within a millisecond, and
 * when the clock steps back), so a store's unique index on event ids grows at its end: with
 * random (version 4) ids each event of a group commit landed on its own index page, and every
 * commit wrote and synced as many pages as it had events.
 */
export function newEventId(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
    prefix = timePrefix(lastMs);
  } else if (++counter > 0xfff) {
    // 4,096 ids in one millisecond: borrow the next one (the RFC's counter rollover).
    lastMs++;
    counter = 0;
    prefix = timePrefix(lastMs);
  }
  // A version 4 UUID's last 17 characters: its variant nibble (8–b) and 60 random bits.
  return `${prefix}${(0x1000 + counter).toString(16).slice(1)}-${randomUUID().slice(19)}`;
}

function timePrefix(ms: number): string {
  const hex = ms.toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7`;
}
