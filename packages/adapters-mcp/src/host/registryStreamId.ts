import { randomUUID } from "node:crypto";

/** A new registry stream id: sortable by start time, unique across hosts. */
export function newRegistryStreamId(now: Date = new Date()): string {
  return `host-${compactTime(now)}-${randomUUID().slice(0, 8)}`;
}

/** `20261130-162107`: a stream id's time part (UTC). */
export function compactTime(now: Date): string {
  const iso = now.toISOString();
  return `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}`;
}
