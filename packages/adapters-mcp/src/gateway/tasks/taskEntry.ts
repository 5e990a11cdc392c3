import type { TaskStatus as McpTaskStatus, Task } from "@modelcontextprotocol/server";
import { RELATED_TASK_META_KEY } from "@modelcontextprotocol/server";
import type { TaskRunner } from "@toolledger/core";
import type { DownstreamExtra } from "../downstreamPeer.js";
import type { ProtocolError } from "../protocolError.js";

/** What a task's call answered, once it is known: its result, or its JSON-RPC error. */
export type TaskOutcome = { result: Record<string, unknown> } | { error: ProtocolError };

/** One task of a conversation, as the gateway keeps it while the client may ask about it. */
export interface TaskEntry {
  /** The id the client knows it by (the gateway's; unguessable, and only this conversation's). */
  readonly taskId: string;
  /** The call (C4) it belongs to. */
  readonly callId: string;
  readonly runner: TaskRunner;
  /** The extension whose tool it runs. */
  readonly extension: string;
  /** The id its server knows it by (runner `server`). */
  readonly upstreamTaskId: string | null;
  /** False: a plain call of a tool that requires a task; the client never sees this task. */
  readonly requested: boolean;
  /** The task as the client sees it (the gateway's id). */
  task: Task;
  /** Its call's answer, once known. */
  outcome: TaskOutcome | null;
  /** Resolves when the task ends (any terminal status). */
  readonly ended: Promise<void>;
  end: () => void;
  /** Stops the call of a task the gateway runs. */
  readonly abort: AbortController | null;
  /** Forgets the task when its time-to-live is over. */
  expiry: NodeJS.Timeout | null;
  /** The client's `tasks/result` requests waiting on it: where its server's requests go (G4). */
  readonly waiting: DownstreamExtra[];
}

/** What a new entry is made of. */
export type NewTaskEntry = Pick<
  TaskEntry,
  "callId" | "extension" | "runner" | "upstreamTaskId" | "requested" | "task" | "abort"
>;

/** A new entry: no outcome yet, nobody waiting, no expiry set. */
export function newTaskEntry(fields: NewTaskEntry): TaskEntry {
  let end = () => {};
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  return {
    ...fields,
    taskId: fields.task.taskId,
    outcome: null,
    ended,
    end,
    expiry: null,
    waiting: [],
  };
}

export const MCP_TERMINAL: ReadonlySet<McpTaskStatus> = new Set([
  "completed",
  "failed",
  "cancelled",
]);

export function isEnded(entry: TaskEntry): boolean {
  return MCP_TERMINAL.has(entry.task.status);
}

/** `_meta` with the related-task key set to `taskId` (or removed, for null). */
export function withRelatedTask(
  meta: Record<string, unknown> | undefined,
  taskId: string | null,
): Record<string, unknown> | undefined {
  const { [RELATED_TASK_META_KEY]: _old, ...rest } = meta ?? {};
  if (taskId !== null) return { ...rest, [RELATED_TASK_META_KEY]: { taskId } };
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** The related task a message names in its `_meta`, or null. */
export function relatedTaskId(params: Record<string, unknown> | undefined): string | null {
  const meta = params?._meta as Record<string, unknown> | undefined;
  const related = meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
  return typeof related?.taskId === "string" ? related.taskId : null;
}

/** A server's Task with the gateway's id; fields the server did not send stay out. */
export function asClientTask(upstream: Task, taskId: string): Task {
  return { ...upstream, taskId };
}
