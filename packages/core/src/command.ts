import { z } from "zod";
import { DeferralModeSchema, ExtensionKindSchema, McpToolSchema } from "./events.js";

/** ISO-8601 time to stamp on the events (E2: supplied by the caller). */
const at = z.string().optional();
/** A registry cache version (R11). */
const version = z.number().int().nonnegative();
/** Extension display name or key; normalised with nameToKey (R1). */
const extension = z.string();
const callId = z.string();

export const AddExtensionCommandSchema = z.strictObject({
  type: z.literal("AddExtension"),
  at,
  name: z.string(),
  kind: ExtensionKindSchema,
  exposeUnprefixed: z.boolean().optional(),
  hidden: z.boolean().optional(),
  availableTools: z.array(z.string()).optional(),
  configFingerprint: z.string(),
});

export const RemoveExtensionCommandSchema = z.strictObject({
  type: z.literal("RemoveExtension"),
  at,
  extension,
});

export const InvalidateToolsCommandSchema = z.strictObject({
  type: z.literal("InvalidateTools"),
  at,
  /** Absent: the host's own invalidate, which bumps the version with or without extensions (R11). */
  extension: extension.optional(),
});

export const RecordFetchCommandSchema = z.strictObject({
  type: z.literal("RecordFetch"),
  at,
  extension,
  startedAtVersion: version,
  tools: z.array(McpToolSchema),
  /** R9: false when a later page failed; `reason` then says why. */
  complete: z.boolean().optional(),
  reason: z.string().optional(),
});

export const RecordFetchFailureCommandSchema = z.strictObject({
  type: z.literal("RecordFetchFailure"),
  at,
  extension,
  startedAtVersion: version,
  error: z.string(),
});

export const ConfigureDeferralCommandSchema = z.strictObject({
  type: z.literal("ConfigureDeferral"),
  at,
  mode: DeferralModeSchema,
  alwaysLoad: z.array(z.string()).optional(),
});

/** D5 one step: the request and its validated response together. */
export const EnableToolsCommandSchema = z.strictObject({
  type: z.literal("EnableTools"),
  at,
  callId,
  names: z.array(z.string()),
});

/** D5 two steps, first: record the model's request; the host's permission layer decides later. */
export const RequestEnableToolsCommandSchema = z.strictObject({
  type: z.literal("RequestEnableTools"),
  at,
  callId,
  names: z.array(z.string()),
});

/** D5 two steps, approved: validated now, against the registry of this moment. */
export const ApproveEnableToolsCommandSchema = z.strictObject({
  type: z.literal("ApproveEnableTools"),
  at,
  callId,
});

/** D5 two steps, denied: a failed response carrying the host's reason. */
export const DenyEnableToolsCommandSchema = z.strictObject({
  type: z.literal("DenyEnableTools"),
  at,
  callId,
  reason: z.string().min(1),
});

export const CompactCommandSchema = z.strictObject({ type: z.literal("Compact"), at });
export const ClearCommandSchema = z.strictObject({ type: z.literal("Clear"), at });

/** E6: what `decide` accepts, checked at run time (JavaScript hosts have no types). */
export const CommandSchema = z.discriminatedUnion("type", [
  AddExtensionCommandSchema,
  RemoveExtensionCommandSchema,
  InvalidateToolsCommandSchema,
  RecordFetchCommandSchema,
  RecordFetchFailureCommandSchema,
  ConfigureDeferralCommandSchema,
  EnableToolsCommandSchema,
  RequestEnableToolsCommandSchema,
  ApproveEnableToolsCommandSchema,
  DenyEnableToolsCommandSchema,
  CompactCommandSchema,
  ClearCommandSchema,
]);
export type Command = z.input<typeof CommandSchema>;
export type CommandType = Command["type"];

export const COMMAND_TYPES: readonly CommandType[] = CommandSchema.options.map(
  (o) => o.shape.type.value,
);
