import { randomBytes, randomUUID } from "node:crypto";

/** A session id that sorts by time and reads well in a terminal: `20261129-234532-a1b2c3`. */
export function newSessionId(now: Date): string {
  const t = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${t}-${randomBytes(3).toString("hex")}`;
}

export function newEventId(): string {
  return randomUUID();
}
