import { decodeEvent } from "../events/decodeEvent.js";
import type { AppendResult, EventToAppend, ExpectedVersion } from "./eventStore.js";

/** A batch ready for a store to write: validated, serialized, in append order. */
export interface SerializedBatch {
  ids: string[];
  types: string[];
  /** Each decoded event as JSON (schema defaults applied). */
  data: string[];
  /** Each event's metadata as a JSON object (`{}` when none). */
  metadata: string[];
  /** An event id that appears twice in the batch (reported after the version check), or null. */
  repeatedId: string | null;
}

/** In unicode mode a surrogate matches only when unpaired (paired ones form one code point). */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * E1/E2 for stores: decodes every event with the core's schemas and serializes it and its
 * metadata, before anything is written. The first invalid event fails the whole batch with
 * `INVALID_EVENT` naming its index, field and id. Ids must survive a round trip through a
 * UTF-8 text column unchanged: no lone surrogates, no NUL.
 */
export function serializeBatch(events: readonly EventToAppend[]): SerializedBatch | AppendResult {
  const n = events.length;
  const batch: SerializedBatch = {
    ids: new Array<string>(n),
    types: new Array<string>(n),
    data: new Array<string>(n),
    metadata: new Array<string>(n),
    repeatedId: null,
  };
  const seen = n > 1 ? new Set<string>() : null;
  for (let index = 0; index < n; index++) {
    const e = events[index]!;
    const result = decodeEvent(e.event);
    if (!result.ok) {
      return invalidEvent(
        index,
        result.error.path,
        `event ${index} (${e.eventId}): ${result.error.message}`,
      );
    }
    let metadata = "{}";
    if (e.metadata !== undefined) {
      const m = e.metadata as unknown;
      if (typeof m !== "object" || m === null || Array.isArray(m)) {
        return invalidEvent(
          index,
          "metadata",
          `event ${index} (${e.eventId}): metadata must be a JSON object`,
        );
      }
      try {
        metadata = JSON.stringify(m);
      } catch (error) {
        return invalidEvent(
          index,
          "metadata",
          `event ${index} (${e.eventId}): metadata is not JSON: ${String(error)}`,
        );
      }
    }
    if (!isStorableId(e.eventId)) {
      return invalidEvent(
        index,
        "eventId",
        `event ${index}: the event id must be a well-formed string without NUL characters`,
      );
    }
    let data: string;
    try {
      data = JSON.stringify(result.event);
    } catch (error) {
      return invalidEvent(index, "", `event ${index} (${e.eventId}): not JSON: ${String(error)}`);
    }
    batch.ids[index] = e.eventId;
    batch.types[index] = result.event.type;
    batch.data[index] = data;
    batch.metadata[index] = metadata;
    if (seen) {
      if (seen.has(e.eventId)) batch.repeatedId ??= e.eventId;
      seen.add(e.eventId);
    }
  }
  return batch;
}

/** Whether a stream or event id is a string a UTF-8 text column gives back unchanged. */
export function isStorableId(id: unknown): id is string {
  return typeof id === "string" && !LONE_SURROGATE.test(id) && !id.includes("\0");
}

/** The `INVALID_EVENT` rejection. */
export function invalidEvent(index: number, path: string, message: string): AppendResult {
  return { ok: false, error: { code: "INVALID_EVENT", index, path, message } };
}

/** Whether a stream at version `actual` satisfies `expected`. */
export function matchesExpectedVersion(expected: ExpectedVersion, actual: number): boolean {
  if (expected === "any") return true;
  if (expected === "no_stream") return actual === 0;
  if (expected === "stream_exists") return actual > 0;
  return expected === actual;
}
