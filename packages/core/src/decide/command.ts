import { z } from "zod";
import { OAUTH_COMMAND_SCHEMAS } from "../authorization/authorizationEvents.js";
import { TASK_COMMAND_SCHEMAS } from "../calls/taskEvents.js";
import {
  CallOutcomeSchema,
  ConversationClientSchema,
  DeferralModeSchema,
  ExtensionKindSchema,
  FetchScopeSchema,
  McpPromptSchema,
  McpResourceSchema,
  McpResourceTemplateSchema,
  McpToolSchema,
  OversizedDefinitionSchema,
} from "../events/events.js";
import { MAX_WIRE_NAME_LENGTH, MIN_WIRE_NAME_LENGTH } from "../naming/wireName.js";
import {
  ApproveDefinitionsCommandSchema,
  CarryPinsCommandSchema,
  MirrorPinsCommandSchema,
  PinDefinitionsCommandSchema,
  RejectDefinitionsCommandSchema,
  SetPinPolicyCommandSchema,
} from "../pinning/pinCommands.js";
import { RecordEraCommandSchema } from "../registry/eraEvents.js";

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
  /**
   * R14: characters the host puts in front of every tool name it passes on (its own outer
   * prefix); wire names are kept within 64 minus this. Default 0.
   */
  outerPrefixBudget: z
    .number()
    .int()
    .min(0)
    .max(MAX_WIRE_NAME_LENGTH - MIN_WIRE_NAME_LENGTH)
    .optional(),
  /** R11: `"extension"`: stale only when its own extension was invalidated after it started. */
  scope: FetchScopeSchema.optional(),
  /** V3: tools the server listed that are over the host's cap on one definition (not in `tools`). */
  oversized: z.array(OversizedDefinitionSchema).optional(),
});

export const RecordFetchFailureCommandSchema = z.strictObject({
  type: z.literal("RecordFetchFailure"),
  at,
  extension,
  startedAtVersion: version,
  error: z.string(),
  scope: FetchScopeSchema.optional(),
});

export const ConfigureDeferralCommandSchema = z.strictObject({
  type: z.literal("ConfigureDeferral"),
  at,
  mode: DeferralModeSchema,
  alwaysLoad: z.array(z.string()).optional(),
  /** S1 `auto`: the token budget of the deferred-names section (default DEFAULT_DEFERRAL_BUDGET). */
  budget: z.number().int().positive().optional(),
});

/** S1/S2: the model's `search_tools` call, answered from the registry of this moment and recorded. */
export const SearchToolsCommandSchema = z.strictObject({
  type: z.literal("SearchTools"),
  at,
  callId,
  query: z.string(),
  limit: z.number().optional(),
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

/** G1: an extension said `notifications/prompts/list_changed`. */
export const InvalidatePromptsCommandSchema = z.strictObject({
  type: z.literal("InvalidatePrompts"),
  at,
  extension,
});

/** G1: an extension said `notifications/resources/list_changed`. */
export const InvalidateResourcesCommandSchema = z.strictObject({
  type: z.literal("InvalidateResources"),
  at,
  extension,
});

/** G1: every page of `prompts/list`, at the extension's prompt-list version; `error` when it failed. */
export const RecordPromptsCommandSchema = z.strictObject({
  type: z.literal("RecordPrompts"),
  at,
  extension,
  startedAtVersion: version,
  prompts: z.array(McpPromptSchema),
  error: z.string().optional(),
  /** V3: prompts over the host's cap on one definition (not in `prompts`). */
  oversized: z.array(OversizedDefinitionSchema).optional(),
});

/** G1: every page of `resources/list` and `resources/templates/list`; `error` when it failed. */
export const RecordResourcesCommandSchema = z.strictObject({
  type: z.literal("RecordResources"),
  at,
  extension,
  startedAtVersion: version,
  resources: z.array(McpResourceSchema),
  resourceTemplates: z.array(McpResourceTemplateSchema),
  error: z.string().optional(),
  /** V3: resources and templates over the host's cap on one definition (not in the lists). */
  oversized: z.array(OversizedDefinitionSchema).optional(),
});

/** C1: a host run starts writing its registry stream. */
export const StartHostCommandSchema = z.strictObject({
  type: z.literal("StartHost"),
  at,
  hostname: z.string(),
  pid: z.number().int().nonnegative().optional(),
  toolledgerVersion: z.string().optional(),
});

/** C1/C5: what a conversation records when it starts or is reopened. */
const conversationOpening = {
  at,
  /** The host stream whose registry events the conversation observes. */
  registryStream: z.string().min(1),
  client: ConversationClientSchema.nullable().optional(),
  protocolVersion: z.string().nullable().optional(),
  transport: z.string().nullable().optional(),
  hostname: z.string().nullable().optional(),
};

export const StartConversationCommandSchema = z.strictObject({
  type: z.literal("StartConversation"),
  ...conversationOpening,
});

export const ResumeConversationCommandSchema = z.strictObject({
  type: z.literal("ResumeConversation"),
  ...conversationOpening,
});

export type ConversationOpening = Omit<
  z.input<typeof StartConversationCommandSchema>,
  "type" | "at"
>;

export const CloseConversationCommandSchema = z.strictObject({
  type: z.literal("CloseConversation"),
  at,
  reason: z.string(),
});

/**
 * L3: the conversation's gateway is gone (its process died; its lease lapsed): its open tasks
 * are `lost`, its calls without a finish end `unknown`, and it is closed as `lost` with when
 * its gateway was last seen. `gone` says who and how it was found gone.
 */
export const EndLostConversationCommandSchema = z.strictObject({
  type: z.literal("EndLostConversation"),
  at,
  lastSeen: z.string(),
  gone: z.string(),
});

/** C4: a tools/call arrived; a call the registry refuses is finished at once. */
export const StartCallCommandSchema = z.strictObject({
  type: z.literal("StartCall"),
  at,
  callId: z.string().min(1),
  /** The name as the client called it. */
  name: z.string(),
  /** Only when the host records payloads (already truncated and redacted). */
  arguments: z.unknown().optional(),
  /** R8: host-internal calls may resolve hidden tools. */
  includeHidden: z.boolean().optional(),
});

/** C4: how a started call ended. */
export const FinishCallCommandSchema = z.strictObject({
  type: z.literal("FinishCall"),
  at,
  callId: z.string().min(1),
  outcome: CallOutcomeSchema,
  durationMs: z.number().nonnegative(),
  /** The refusal code when the host refuses a call the registry allowed (bad arguments). */
  reason: z.string().optional(),
  error: z.string().optional(),
  result: z.unknown().optional(),
});

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
  InvalidatePromptsCommandSchema,
  InvalidateResourcesCommandSchema,
  RecordPromptsCommandSchema,
  RecordResourcesCommandSchema,
  StartHostCommandSchema,
  StartConversationCommandSchema,
  ResumeConversationCommandSchema,
  CloseConversationCommandSchema,
  EndLostConversationCommandSchema,
  StartCallCommandSchema,
  FinishCallCommandSchema,
  SearchToolsCommandSchema,
  SetPinPolicyCommandSchema,
  PinDefinitionsCommandSchema,
  ApproveDefinitionsCommandSchema,
  RejectDefinitionsCommandSchema,
  CarryPinsCommandSchema,
  MirrorPinsCommandSchema,
  ...TASK_COMMAND_SCHEMAS,
  ...OAUTH_COMMAND_SCHEMAS,
  RecordEraCommandSchema,
]);
export type Command = z.input<typeof CommandSchema>;
export type CommandType = Command["type"];

export const COMMAND_TYPES: readonly CommandType[] = CommandSchema.options.map(
  (o) => o.shape.type.value,
);
