import { z } from "zod";

/**
 * Where an event's fact came from, for events a host did not record itself (an import of
 * another host's session). `exact`: the source holds the fact as such (a tool request and its
 * response); `inferred`: derived from what the source holds (an extension found in a snapshot
 * of the enabled set, a duration from message timestamps); `synthetic`: made up so the log can
 * be folded at all (a tool list the source never stored, built from the names it used).
 * Events a host records itself carry no origin: they are exact by construction. Optional, so
 * every log written before it decodes unchanged (E6).
 */
export const EventOriginKindSchema = z.enum(["exact", "inferred", "synthetic"]);
export type EventOriginKind = z.infer<typeof EventOriginKindSchema>;

export const EventOriginSchema = z.object({
  kind: EventOriginKindSchema,
  /** The source, as `<host>:<format>` (`goose:sqlite`, `goose:export`, `goose:jsonl`). */
  source: z.string().min(1),
  /** The fact's identity in its source, stable across re-reads (an import skips keys it holds). */
  key: z.string().min(1),
  /** Why an inferred or synthetic fact is what it is, in a sentence. */
  note: z.string().optional(),
});
export type EventOrigin = z.infer<typeof EventOriginSchema>;

/** The optional `origin` every event schema carries (last, so older events keep their key order). */
export const origin = EventOriginSchema.optional();
