import { z } from "zod";
import {
  McpPromptSchema,
  McpResourceSchema,
  McpResourceTemplateSchema,
  McpToolSchema,
} from "../events/events.js";
import {
  DecidedItemSchema,
  LedgerEventSchema,
  PinListSchema,
  PinPolicySchema,
  PinRecordSchema,
} from "./pinEvents.js";

const at = z.string().optional();
const extension = z.string();

/** P5: the policy a host runs one server with. */
export const SetPinPolicyCommandSchema = z.strictObject({
  type: z.literal("SetPinPolicy"),
  at,
  extension,
  policy: PinPolicySchema,
});

/**
 * P2/P3: one listing of a server's definitions, decided against the pins ledger before the
 * listing is recorded: the baseline at first use, what changed, what is new, what a check
 * flags. Only the field of `list` is read (`resources` reads `resourceTemplates` too).
 */
export const PinDefinitionsCommandSchema = z.strictObject({
  type: z.literal("PinDefinitions"),
  at,
  extension,
  /** `off` servers are not pinned; a host does not send them. */
  policy: z.enum(["quarantine", "warn"]),
  list: PinListSchema,
  tools: z.array(McpToolSchema).optional(),
  prompts: z.array(McpPromptSchema).optional(),
  resources: z.array(McpResourceSchema).optional(),
  resourceTemplates: z.array(McpResourceTemplateSchema).optional(),
  instructions: z.string().optional(),
});

/** P6: a person approves definitions by the digests they reviewed. */
export const ApproveDefinitionsCommandSchema = z.strictObject({
  type: z.literal("ApproveDefinitions"),
  at,
  extension,
  items: z.array(DecidedItemSchema).min(1),
  by: z.string().min(1),
});

/** P6: a person rejects definitions by the digests they reviewed. */
export const RejectDefinitionsCommandSchema = z.strictObject({
  type: z.literal("RejectDefinitions"),
  at,
  extension,
  items: z.array(DecidedItemSchema).min(1),
  by: z.string().min(1),
  reason: z.string().optional(),
});

/** P4: a host starts a server's registry record from the pins ledger. */
export const CarryPinsCommandSchema = z.strictObject({
  type: z.literal("CarryPins"),
  at,
  extension,
  ledgerVersion: z.number().int().nonnegative(),
  baselines: z.array(PinListSchema),
  baselineAt: z.record(z.string(), z.string()).optional(),
  records: z.array(PinRecordSchema),
  unsettled: z.number().int().nonnegative(),
});

/** P4: a host copies pins ledger events about its servers into its registry stream. */
export const MirrorPinsCommandSchema = z.strictObject({
  type: z.literal("MirrorPins"),
  at,
  events: z.array(LedgerEventSchema).min(1),
});
