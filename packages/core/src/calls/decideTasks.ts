import type { z } from "zod";
import { accepted, type Decision, rejected, v } from "../decide/decision.js";
import { asReloaded, type JsonSeen, jsonProblem } from "../decide/jsonProblem.js";
import type { CallOutcome, ToolledgerEvent } from "../events/events.js";
import type { State } from "../fold/state.js";
import {
  type ChangeTaskStatusCommandSchema,
  type CreateTaskCommandSchema,
  type TaskStatus,
  TERMINAL_TASK_STATUSES,
} from "./taskEvents.js";
import { findTask } from "./taskSummary.js";

export type TaskCommand =
  | z.output<typeof CreateTaskCommandSchema>
  | z.output<typeof ChangeTaskStatusCommandSchema>;

/** C4: the outcome of a call whose task ended with this status. */
const CALL_OUTCOME: Record<TaskStatus, CallOutcome> = {
  working: "ok",
  input_required: "ok",
  completed: "ok",
  failed: "tool_error",
  cancelled: "cancelled",
  // It did not end within its time-to-live.
  expired: "timeout",
  // Nobody saw it end (L3).
  lost: "unknown",
};

/**
 * C6: a conversation's tasks. A task id is recorded once; a status after an end changes
 * nothing (MCP: terminal is final); the same status and message again changes nothing; a
 * terminal status of a task its server runs finishes the task's call (C4) when the call is
 * still open.
 */
export function decideTasks(state: State, command: TaskCommand, at: { at?: string }): Decision {
  const tasks = state.tasks;
  if (command.type === "CreateTask") {
    if (findTask(tasks, command.taskId))
      return rejected("DUPLICATE_TASK_ID", `task id ${JSON.stringify(command.taskId)} is in use`);
    return accepted([
      {
        type: "TaskCreated",
        v,
        ...at,
        callId: command.callId,
        taskId: command.taskId,
        runner: command.runner,
        upstreamTaskId: command.upstreamTaskId ?? null,
        ttlMs: command.ttlMs ?? null,
        pollIntervalMs: command.pollIntervalMs ?? null,
        requested: command.requested ?? true,
      },
    ]);
  }
  const task = findTask(tasks, command.taskId);
  if (!task) {
    return rejected(
      "UNKNOWN_TASK",
      `ChangeTaskStatus: no task ${JSON.stringify(command.taskId)} in this conversation`,
    );
  }
  const message = command.message ?? null;
  if (TERMINAL_TASK_STATUSES.has(task.status)) return accepted([]);
  if (task.status === command.status && task.message === message) return accepted([]);
  const changed: ToolledgerEvent = {
    type: "TaskStatusChanged",
    v,
    ...at,
    taskId: command.taskId,
    status: command.status,
    message,
  };
  const call = state.calls.inFlight.find((c) => c.callId === task.callId);
  if (!TERMINAL_TASK_STATUSES.has(command.status) || task.runner !== "server" || !call)
    return accepted([changed]);
  let result = command.result;
  if (result !== undefined) {
    const seen: JsonSeen = { negativeZero: false };
    const problem = jsonProblem(result, ["result"], seen);
    if (problem) {
      const path = problem.path.join(".");
      return rejected("INVALID_COMMAND", `ChangeTaskStatus: ${path}: ${problem.message}`, path);
    }
    if (seen.negativeZero) result = asReloaded(result);
  }
  const started = call.at === null ? Number.NaN : Date.parse(call.at);
  const ended = at.at === undefined ? Number.NaN : Date.parse(at.at);
  const durationMs =
    command.durationMs ??
    (Number.isFinite(started) && Number.isFinite(ended) ? Math.max(0, ended - started) : 0);
  return accepted([
    changed,
    {
      type: "ToolCallFinished",
      v,
      ...at,
      callId: task.callId,
      outcome: CALL_OUTCOME[command.status],
      durationMs,
      // The refusal-reason slot names how a task that did not finish ended.
      reason: command.status === "expired" || command.status === "lost" ? command.status : null,
      error: command.error ?? (command.status === "completed" ? null : message),
      ...(result === undefined ? {} : { result }),
    },
  ]);
}
