import { z } from "zod";
import { EVENT_SCHEMA_VERSION } from "../events/eventSchemaVersion.js";
import { origin } from "../events/origin.js";

const v = z.literal(EVENT_SCHEMA_VERSION);
const at = z.string().optional();
/** `sha256:<64 hex digits>` of a definition's canonical JSON (P1). */
const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);

/** P5: how pinning treats one server: enforce, record only, or not at all. */
export const PinPolicySchema = z.enum(["quarantine", "warn", "off"]);
export type PinPolicy = z.infer<typeof PinPolicySchema>;

/** P1: what is pinned, per server. `instructions` has one item, named "". */
export const PinKindSchema = z.enum([
  "tool",
  "prompt",
  "resource",
  "resource_template",
  "instructions",
]);
export type PinKind = z.infer<typeof PinKindSchema>;

/** P2: the listing a definition arrived in; trust on first use is per listing. */
export const PinListSchema = z.enum(["tools", "prompts", "resources", "instructions"]);
export type PinList = z.infer<typeof PinListSchema>;

/** P3: the checks that quarantine a definition even at first sight. */
export const PinCheckSchema = z.enum(["invisible", "shadowing", "encoded", "instruction"]);
export type PinCheck = z.infer<typeof PinCheckSchema>;

/** P3: one finding: which check, where in the definition, and the text it found. */
export const PinFindingSchema = z.object({
  check: PinCheckSchema,
  /** The JSON path of the text in the definition (`description`, `inputSchema.properties.path.description`). */
  field: z.string(),
  /** Where the finding starts in that text (UTF-16 code units). */
  index: z.number().int().nonnegative(),
  /** The text around it, invisible characters shown as `<U+200B>`. */
  excerpt: z.string(),
  /** What the finding decodes to (hidden tag characters, a base64 payload), when it decodes. */
  decoded: z.string().optional(),
  /** One sentence: what was found. */
  detail: z.string(),
});
export type PinFinding = z.infer<typeof PinFindingSchema>;

const item = { kind: PinKindSchema, name: z.string(), digest };

/** One definition as pinned: its digest and the definition itself (the part that is pinned). */
export const PinnedItemSchema = z.object({ ...item, definition: z.unknown() });
export type PinnedItem = z.infer<typeof PinnedItemSchema>;

/** P2: a definition that awaits a person's decision, and why. */
export const AwaitingItemSchema = z.object({
  ...item,
  definition: z.unknown(),
  /** `changed`: it differs from the approved one; `pending`: nothing of this name was approved. */
  status: z.enum(["changed", "pending"]),
  /** The approved digest it differs from (changed). */
  previous: digest.nullable().default(null),
  /** The JSON paths that differ from the approved definition (changed), at most 20. */
  changes: z.array(z.string()).default([]),
  /** P3 findings in this definition. */
  findings: z.array(PinFindingSchema).default([]),
  /** A pending item whose definition equals an approved one no longer listed: that name. */
  renamedFrom: z.string().nullable().default(null),
});
export type AwaitingItem = z.infer<typeof AwaitingItemSchema>;

/** An approval or a rejection names the digest a person reviewed. */
export const DecidedItemSchema = z.object(item);
export type DecidedItem = z.infer<typeof DecidedItemSchema>;

/** P5: the policy a host runs a server with (its registry stream only; absent: not pinned). */
export const PinPolicySetSchema = z.object({
  type: z.literal("PinPolicySet"),
  v,
  at,
  extension: z.string(),
  policy: PinPolicySchema,
  origin,
});
export type PinPolicySet = z.infer<typeof PinPolicySetSchema>;

/**
 * P2: trust on first use. The first listing of a server's tools (prompts, resources,
 * instructions) is its approved baseline; items a check flagged are not in it (they arrive
 * in the same batch as `DefinitionsChanged`, pending).
 */
export const DefinitionsPinnedSchema = z.object({
  type: z.literal("DefinitionsPinned"),
  v,
  at,
  extension: z.string(),
  list: PinListSchema,
  items: z.array(PinnedItemSchema),
  origin,
});
export type DefinitionsPinned = z.infer<typeof DefinitionsPinnedSchema>;

/**
 * P2: definitions of one listing that await approval: changed since approved, new after the
 * baseline (renames included), or flagged at first sight. `coalesced`: the server changed on
 * so many listings in a row that further changes are not recorded until a decision (P4).
 */
export const DefinitionsChangedSchema = z.object({
  type: z.literal("DefinitionsChanged"),
  v,
  at,
  extension: z.string(),
  list: PinListSchema,
  items: z.array(AwaitingItemSchema),
  coalescing: z.boolean().default(false),
  origin,
});
export type DefinitionsChanged = z.infer<typeof DefinitionsChangedSchema>;

/**
 * P2: the server lists the approved definition again: what awaited approval is moot. Not a
 * person's approval (nobody let anything new through), so it has its own event.
 */
export const DefinitionsRestoredSchema = z.object({
  type: z.literal("DefinitionsRestored"),
  v,
  at,
  extension: z.string(),
  list: PinListSchema,
  items: z.array(DecidedItemSchema),
  origin,
});
export type DefinitionsRestored = z.infer<typeof DefinitionsRestoredSchema>;

/** P6: a person approved these definitions (each by the digest they reviewed). */
export const DefinitionsApprovedSchema = z.object({
  type: z.literal("DefinitionsApproved"),
  v,
  at,
  extension: z.string(),
  items: z.array(DecidedItemSchema),
  /** Who approved (`user@host`). */
  by: z.string(),
  origin,
});
export type DefinitionsApproved = z.infer<typeof DefinitionsApprovedSchema>;

/** P6: a person rejected these definitions: they stay out of the model's view. */
export const DefinitionsRejectedSchema = z.object({
  type: z.literal("DefinitionsRejected"),
  v,
  at,
  extension: z.string(),
  items: z.array(DecidedItemSchema),
  by: z.string(),
  reason: z.string().nullable().default(null),
  origin,
});
export type DefinitionsRejected = z.infer<typeof DefinitionsRejectedSchema>;

/** A pinned definition as the ledger keeps it (approved or awaiting). */
export const PinRecordSchema = z.object({
  kind: PinKindSchema,
  name: z.string(),
  approved: z
    .object({
      digest,
      definition: z.unknown(),
      by: z.string(),
      at: z.string().nullable(),
    })
    .nullable(),
  awaiting: AwaitingItemSchema.extend({ at: z.string().nullable() }).nullable(),
  /** Digests a person rejected (the latest few). */
  rejected: z.array(digest),
});
export type PinRecordSnapshot = z.infer<typeof PinRecordSchema>;

/**
 * P4: a host run starts with what the pins ledger knows of a server (C1: a registry stream
 * folds on its own): its approved and awaiting definitions and the listings with a baseline.
 */
export const PinsCarriedSchema = z.object({
  type: z.literal("PinsCarried"),
  v,
  at,
  extension: z.string(),
  /** The ledger stream's position this snapshot was taken at. */
  ledgerVersion: z.number().int().nonnegative(),
  baselines: z.array(PinListSchema),
  /** When each baseline was taken (for the first start's grace, P2). */
  baselineAt: z.record(z.string(), z.string()).default({}),
  records: z.array(PinRecordSchema),
  /** How many listings in a row changed without a decision (P4 coalescing). */
  unsettled: z.number().int().nonnegative().default(0),
  origin,
});
export type PinsCarried = z.infer<typeof PinsCarriedSchema>;

export type PinEvent =
  | PinPolicySet
  | DefinitionsPinned
  | DefinitionsChanged
  | DefinitionsRestored
  | DefinitionsApproved
  | DefinitionsRejected
  | PinsCarried;

/** The pin events a pins ledger holds and a host copies into its registry stream (P4). */
export const LedgerEventSchema = z.discriminatedUnion("type", [
  DefinitionsPinnedSchema,
  DefinitionsChangedSchema,
  DefinitionsRestoredSchema,
  DefinitionsApprovedSchema,
  DefinitionsRejectedSchema,
]);
export type LedgerEvent = z.infer<typeof LedgerEventSchema>;

export const PIN_EVENT_TYPES = [
  "PinPolicySet",
  "DefinitionsPinned",
  "DefinitionsChanged",
  "DefinitionsRestored",
  "DefinitionsApproved",
  "DefinitionsRejected",
  "PinsCarried",
] as const satisfies readonly PinEvent["type"][];
