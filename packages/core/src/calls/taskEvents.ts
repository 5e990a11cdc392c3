import { z } from "zod";
import { EVENT_SCHEMA_VERSION } from "../events/eventSchemaVersion.js";
import { origin } from "../events/origin.js";

// C6: what a conversation records of its tasks (MCP 2025-11-25 task-augmented `tools/call`).
// A task is a call (C4): `TaskCreated` names the call it belongs to; its status changes
// follow; the call's `ToolCallFinished` closes it.

const v = z.literal(EVENT_SCHEMA_VERSION);
const at = z.string().optional();

/**
 * A task's status. MCP's five (`working`, `input_required`, `completed`, `failed`,
 * `cancelled`) and two the gateway records when no status can come any more: `expired` (its
 * time-to-live ran out, or its server no longer knows it, before it ended) and `lost` (the
 * gateway stopped while it was open and was not there to see its end).
 */
export const TaskStatusSchema = z.enum([
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
  "expired",
  "lost",
]);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** Statuses after which a task never changes. */
export const TERMINAL_TASK_STATUSES: ReadonlySet<TaskStatus> = new Set([
  "completed",
  "failed",
  "cancelled",
  "expired",
  "lost",
]);

/** `server`: the tool's server runs the task (relayed); `gateway`: the gateway runs the call as a task. */
export const TaskRunnerSchema = z.enum(["server", "gateway"]);
export type TaskRunner = z.infer<typeof TaskRunnerSchema>;

/** C6: a call became a task. */
export const TaskCreatedSchema = z.object({
  type: z.literal("TaskCreated"),
  v,
  at,
  /** The call (C4) the task belongs to. */
  callId: z.string().min(1),
  /** The id the client knows the task by (the gateway's). */
  taskId: z.string().min(1),
  runner: TaskRunnerSchema,
  /** The id the server knows it by (runner `server`). */
  upstreamTaskId: z.string().nullable().default(null),
  /** How long the task is kept from its creation, in ms; null: as long as its runner likes. */
  ttlMs: z.number().int().nonnegative().nullable().default(null),
  pollIntervalMs: z.number().int().nonnegative().nullable().default(null),
  /** False when the client made a plain call and the gateway made the task on its behalf (a tool that requires one). */
  requested: z.boolean().default(true),
  origin,
});
export type TaskCreated = z.infer<typeof TaskCreatedSchema>;

/** C6: a task's status (or its status message) changed. */
export const TaskStatusChangedSchema = z.object({
  type: z.literal("TaskStatusChanged"),
  v,
  at,
  taskId: z.string().min(1),
  status: TaskStatusSchema,
  /** The runner's status message, or the gateway's reason (expired, lost, cancelled by a close). */
  message: z.string().nullable().default(null),
  origin,
});
export type TaskStatusChanged = z.infer<typeof TaskStatusChangedSchema>;

export type TaskEvent = TaskCreated | TaskStatusChanged;

/** The task family's events, for the event union (E1). */
export const TASK_EVENT_SCHEMAS = [TaskCreatedSchema, TaskStatusChangedSchema] as const;

/** C6: record that a started call is now a task. */
export const CreateTaskCommandSchema = z.strictObject({
  type: z.literal("CreateTask"),
  at,
  callId: z.string().min(1),
  taskId: z.string().min(1),
  runner: TaskRunnerSchema,
  upstreamTaskId: z.string().min(1).optional(),
  ttlMs: z.number().int().nonnegative().nullable().optional(),
  pollIntervalMs: z.number().int().nonnegative().nullable().optional(),
  requested: z.boolean().optional(),
});

/**
 * C6: record a task's new status. A terminal status of a task its server runs also finishes
 * its call (C4: outcome from the status; `durationMs` from the call's start unless given);
 * a task the gateway runs finishes its call where the call itself ends.
 */
export const ChangeTaskStatusCommandSchema = z.strictObject({
  type: z.literal("ChangeTaskStatus"),
  at,
  taskId: z.string().min(1),
  status: TaskStatusSchema,
  message: z.string().optional(),
  /** The call's duration when this ends it; default: from its ToolCallStarted to `at`. */
  durationMs: z.number().nonnegative().optional(),
  /** The call's error text when this ends it badly (secret-free). */
  error: z.string().optional(),
  /** The call's result when this ends it, recorded only when the host opts in (truncated, redacted). */
  result: z.unknown().optional(),
});

/** The task family's commands, for the command union (E6). */
export const TASK_COMMAND_SCHEMAS = [
  CreateTaskCommandSchema,
  ChangeTaskStatusCommandSchema,
] as const;
