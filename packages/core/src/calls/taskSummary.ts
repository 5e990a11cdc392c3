import type { TaskRunner, TaskStatus } from "./taskEvents.js";

/** C6: how many open tasks the state tracks (a crashed gateway can leave some open forever). */
export const OPEN_TASK_LIMIT = 100;
/** C6: how many ended tasks the state keeps in full. */
export const TASK_HISTORY_LIMIT = 20;

/** C6: one task as the state keeps it. */
export interface TaskRecord {
  taskId: string;
  callId: string;
  runner: TaskRunner;
  upstreamTaskId: string | null;
  /** False: the gateway made it for a plain call of a tool that requires a task. */
  requested: boolean;
  /** Its call's tool (C4), when the call was known to the state. */
  publicName: string | null;
  owner: string | null;
  status: TaskStatus;
  message: string | null;
  createdAt: string | null;
  /** When its status last changed (its creation, before any change). */
  updatedAt: string | null;
}

/** C6: a bounded summary of the conversation's tasks; the log holds every change. */
export interface TaskSummary {
  created: number;
  /** Ended tasks by their final status. */
  ended: Readonly<Record<TaskStatus, number>>;
  /** Tasks not ended yet, oldest first (at most OPEN_TASK_LIMIT). */
  open: readonly TaskRecord[];
  /** The latest ended tasks, oldest first (at most TASK_HISTORY_LIMIT). */
  recent: readonly TaskRecord[];
}

export const NO_TASKS: TaskSummary = Object.freeze({
  created: 0,
  ended: Object.freeze({
    working: 0,
    input_required: 0,
    completed: 0,
    failed: 0,
    cancelled: 0,
    expired: 0,
    lost: 0,
  }),
  open: [],
  recent: [],
});

/** A task the state still knows (open, or among the latest ended), by its id. */
export function findTask(tasks: TaskSummary, taskId: string): TaskRecord | undefined {
  return (
    tasks.open.find((t) => t.taskId === taskId) ?? tasks.recent.find((t) => t.taskId === taskId)
  );
}
