import type { LogEntry } from "../session/logEntry.js";
import type { CallHistoryEntry, CallTask, Reason } from "./explanation.js";

/** C6: the task each call became, by call id, with every status it went through in order. */
export function callTasks(entries: readonly LogEntry[]): Map<string, CallTask> {
  const byCall = new Map<string, CallTask>();
  const byTask = new Map<string, CallTask>();
  for (const { event } of entries) {
    if (event.type === "TaskCreated") {
      const task: CallTask = {
        taskId: event.taskId,
        runner: event.runner,
        requested: event.requested,
        statuses: ["working"],
      };
      byCall.set(event.callId, task);
      byTask.set(event.taskId, task);
    } else if (event.type === "TaskStatusChanged") {
      const task = byTask.get(event.taskId);
      if (task && task.statuses.at(-1) !== event.status) task.statuses.push(event.status);
    }
  }
  return byCall;
}

/** C6: how many of the tool's calls ran as tasks, by whom, and where the last one went; null when none did. */
export function tasksReason(calls: readonly CallHistoryEntry[]): Reason | null {
  const asTasks = calls.filter((c) => c.task !== null);
  if (asTasks.length === 0) return null;
  const by = (runner: string) => asTasks.filter((c) => c.task!.runner === runner).length;
  return {
    rule: "C6",
    text: `${asTasks.length} call(s) ran as tasks (${by("server")} by its server, ${by("gateway")} by the gateway); the last one went ${asTasks
      .at(-1)!
      .task!.statuses.map((s) => s.replaceAll("_", " "))
      .join(" → ")}`,
    positions: asTasks.map((c) => c.position),
  };
}
