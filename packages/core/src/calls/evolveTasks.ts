import { ignore } from "../fold/ignore.js";
import type { CallSummary, State } from "../fold/state.js";
import { update } from "../fold/update.js";
import { type TaskEvent, TERMINAL_TASK_STATUSES } from "./taskEvents.js";
import {
  OPEN_TASK_LIMIT,
  TASK_HISTORY_LIMIT,
  type TaskRecord,
  type TaskSummary,
} from "./taskSummary.js";

/** C6: a task event changes the conversation's task summary (an event it cannot apply is ignored, E2). */
export function evolveTasks(state: State, e: TaskEvent): State {
  const tasks = foldTask(state.tasks, state.calls, e);
  return typeof tasks === "string" ? ignore(state, e.type, tasks) : update(state, { tasks });
}

/**
 * C6: a task event folded into a task summary; a string is the reason it could not apply.
 * `calls` names the call's tool when the call is still known.
 */
export function foldTask(
  tasks: TaskSummary,
  calls: CallSummary,
  e: TaskEvent,
): TaskSummary | string {
  if (e.type === "TaskCreated") {
    if (tasks.open.some((t) => t.taskId === e.taskId))
      return `task ${JSON.stringify(e.taskId)} was created already`;
    const call =
      calls.inFlight.find((c) => c.callId === e.callId) ??
      calls.recent.find((c) => c.callId === e.callId);
    const record: TaskRecord = {
      taskId: e.taskId,
      callId: e.callId,
      runner: e.runner,
      upstreamTaskId: e.upstreamTaskId ?? null,
      requested: e.requested ?? true,
      publicName: call?.publicName ?? null,
      owner: call?.owner ?? null,
      status: "working",
      message: null,
      createdAt: e.at ?? null,
      updatedAt: e.at ?? null,
    };
    const open = [...tasks.open, record];
    if (open.length > OPEN_TASK_LIMIT) open.splice(0, open.length - OPEN_TASK_LIMIT);
    return { ...tasks, created: tasks.created + 1, open };
  }
  const index = tasks.open.findIndex((t) => t.taskId === e.taskId);
  if (index === -1) return `no open task ${JSON.stringify(e.taskId)}`;
  const task: TaskRecord = {
    ...tasks.open[index]!,
    status: e.status,
    message: e.message ?? null,
    updatedAt: e.at ?? null,
  };
  if (!TERMINAL_TASK_STATUSES.has(e.status)) {
    const open = [...tasks.open];
    open[index] = task;
    return { ...tasks, open };
  }
  const recent = [...tasks.recent, task];
  if (recent.length > TASK_HISTORY_LIMIT) recent.splice(0, recent.length - TASK_HISTORY_LIMIT);
  return {
    created: tasks.created,
    ended: { ...tasks.ended, [e.status]: tasks.ended[e.status] + 1 },
    open: tasks.open.filter((_, i) => i !== index),
    recent,
  };
}
