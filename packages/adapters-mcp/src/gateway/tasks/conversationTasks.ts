import { randomUUID } from "node:crypto";
import type { TaskStatus as McpTaskStatus, Task } from "@modelcontextprotocol/server";
import { ProtocolErrorCode, RELATED_TASK_META_KEY } from "@modelcontextprotocol/server";
import type { TaskStatus } from "@toolledger/core";
import type { Conversation } from "../../conversation/conversation.js";
import type { DownstreamExtra, Peer } from "../downstreamPeer.js";
import type { GatewayHub } from "../gatewayHub.js";
import { ProtocolError, toProtocolError } from "../protocolError.js";
import {
  CANCEL_ON_CLOSE_MS,
  OPEN_TASKS_PER_CONVERSATION,
  TASK_LIST_PAGE,
  TASK_RESULT_TIMEOUT_MS,
} from "./gatewayTaskLimits.js";
import { newGatewayTask } from "./newGatewayTask.js";
import { relayToTaskServer } from "./relayToTaskServer.js";
import {
  asClientTask,
  isEnded,
  type NewTaskEntry,
  newTaskEntry,
  type TaskEntry,
  type TaskOutcome,
} from "./taskEntry.js";
import { readCursor, writeCursor } from "./taskListCursor.js";
import { isGone, untilEnded, withoutRelatedTask } from "./taskWaits.js";
import type { TaskOwner } from "./upstreamTasks.js";

/**
 * G4/C6: one conversation's tasks. Their ids are the gateway's, so a client sees, fetches and
 * cancels only its own, and two conversations' tasks never collide; a task its server runs
 * is relayed there by the server's id. Every change of a task's status is recorded in the
 * conversation (C6) and told to the client that owns it.
 */
export class ConversationTasks implements TaskOwner {
  readonly peer: Peer;
  readonly #hub: GatewayHub;
  readonly #conversation: Conversation;
  /** In creation order (`tasks/list` pages through it). */
  readonly #entries = new Map<string, TaskEntry>();

  constructor(hub: GatewayHub, peer: Peer, conversation: Conversation) {
    this.#hub = hub;
    this.peer = peer;
    this.#conversation = conversation;
  }

  /** Refuses a new task when the conversation has too many open. */
  checkRoom(): void {
    let open = 0;
    for (const entry of this.#entries.values()) if (!isEnded(entry)) open++;
    if (open >= OPEN_TASKS_PER_CONVERSATION)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `this conversation has ${open} open tasks, the most the gateway runs at once; wait for some to end or cancel them (tasks/cancel)`,
      );
  }

  /** A task its server made for a call (runner `server`): relayed under a gateway id. */
  async relayed(
    callId: string,
    extension: string,
    upstream: Task,
    requested: boolean,
  ): Promise<TaskEntry> {
    const entry = this.#add({
      callId,
      extension,
      runner: "server",
      upstreamTaskId: upstream.taskId,
      requested,
      task: asClientTask(upstream, randomUUID()),
      abort: null,
    });
    this.#hub.upstreamTasks.add(extension, upstream.taskId, this, entry);
    await this.#conversation.recordTask({
      type: "CreateTask",
      callId,
      taskId: entry.taskId,
      runner: "server",
      upstreamTaskId: upstream.taskId,
      ttlMs: upstream.ttl,
      ...(upstream.pollInterval === undefined ? {} : { pollIntervalMs: upstream.pollInterval }),
      requested,
    });
    if (upstream.status !== "working") await this.observe(entry, upstream);
    return entry;
  }

  /** A task the gateway runs itself for a call (runner `gateway`); `abort` stops its call. */
  async local(
    callId: string,
    extension: string,
    ttl: number | undefined,
    abort: AbortController,
  ): Promise<TaskEntry> {
    const task = newGatewayTask(ttl);
    const entry = this.#add({
      callId,
      extension,
      runner: "gateway",
      upstreamTaskId: null,
      requested: true,
      task,
      abort,
    });
    await this.#conversation.recordTask({
      type: "CreateTask",
      callId,
      taskId: entry.taskId,
      runner: "gateway",
      ttlMs: task.ttl,
      pollIntervalMs: task.pollInterval,
    });
    return entry;
  }

  /**
   * A status its runner reported (a notification, an answer to tasks/get or tasks/cancel):
   * recorded when it changed (C6) and told to the client that owns the task.
   */
  async observe(
    entry: TaskEntry,
    seen: { status: McpTaskStatus; statusMessage?: string | undefined },
  ): Promise<void> {
    if (isEnded(entry)) return;
    const message = seen.statusMessage;
    if (entry.task.status === seen.status && entry.task.statusMessage === message) return;
    const { statusMessage: _old, ...task } = entry.task;
    entry.task = {
      ...task,
      status: seen.status,
      ...(message === undefined ? {} : { statusMessage: message }),
      lastUpdatedAt: new Date().toISOString(),
    };
    if (isEnded(entry)) this.#ended(entry);
    // Told in the order it changed (a later change may land while this one is recorded).
    if (entry.requested) {
      this.peer.server
        .notification({ method: "notifications/tasks/status", params: { ...entry.task } })
        .catch((error: unknown) => this.#hub.report(error));
    }
    await this.#record(entry, seen.status, message);
  }

  /** A task the gateway ran ended with `outcome` (or `status` when the gateway ended it). */
  async settle(entry: TaskEntry, outcome: TaskOutcome, message?: string): Promise<void> {
    entry.outcome ??= outcome;
    const failed = "error" in outcome || outcome.result.isError === true;
    await this.observe(entry, {
      status: failed ? "failed" : "completed",
      ...(message === undefined ? {} : { statusMessage: message }),
    });
  }

  /** The task a client names, if it is this conversation's; else -32602 as MCP prescribes. */
  find(taskId: string): TaskEntry {
    const entry = this.#entries.get(taskId);
    if (!entry?.requested)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "Failed to retrieve task: Task not found",
      );
    return entry;
  }

  /** `tasks/get`: a relayed task's status from its server; a gateway task's from here. */
  async get(taskId: string, extra: DownstreamExtra): Promise<Task> {
    const entry = this.find(taskId);
    if (entry.runner === "server" && !isEnded(entry)) await this.#refresh(entry, extra);
    return { ...entry.task };
  }

  /**
   * `tasks/result`: blocks until the task ends, then answers exactly what its call answered
   * (a result with the related-task key, or the call's JSON-RPC error). While it waits, the
   * task's server's requests (an input_required elicitation) come to the client on it.
   */
  async result(
    entry: TaskEntry,
    extra: DownstreamExtra,
    signal: AbortSignal = extra.mcpReq.signal,
  ): Promise<Record<string, unknown>> {
    entry.waiting.push(extra);
    try {
      if (!entry.outcome && entry.runner === "server")
        await this.#fetchResult(entry, extra, signal);
      if (!entry.outcome) await untilEnded(entry, signal);
    } finally {
      entry.waiting.splice(entry.waiting.indexOf(extra), 1);
    }
    const outcome = entry.outcome!;
    if ("error" in outcome) throw outcome.error;
    const meta = outcome.result._meta as Record<string, unknown> | undefined;
    return entry.requested
      ? { ...outcome.result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId: entry.taskId } } }
      : outcome.result;
  }

  /** `tasks/list`: this conversation's tasks across every server and the gateway, paged. */
  async list(
    cursor: string | undefined,
    extra: DownstreamExtra,
  ): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const offset = cursor === undefined ? 0 : readCursor(cursor);
    const all = [...this.#entries.values()].filter((e) => e.requested);
    const page = all.slice(offset, offset + TASK_LIST_PAGE);
    await Promise.all(
      page
        .filter((e) => e.runner === "server" && !isEnded(e))
        .map((e) => this.#refresh(e, extra).catch(() => undefined)),
    );
    const tasks = page.filter((e) => this.#entries.has(e.taskId)).map((e) => ({ ...e.task }));
    return offset + TASK_LIST_PAGE < all.length
      ? { tasks, nextCursor: writeCursor(offset + TASK_LIST_PAGE) }
      : { tasks };
  }

  /** `tasks/cancel`: relayed to its server, or the gateway's own call stopped. */
  async cancel(taskId: string, extra: DownstreamExtra): Promise<Task> {
    const entry = this.find(taskId);
    if (isEnded(entry))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Cannot cancel task: already in terminal status '${entry.task.status}'`,
      );
    await this.#cancel(entry, "Client cancelled task execution.", extra);
    return { ...entry.task };
  }

  /** Cancels a task the client does not know (one made on its behalf): its call was cancelled. */
  async cancelEntry(entry: TaskEntry, message: string): Promise<void> {
    if (!isEnded(entry)) await this.#cancel(entry, message, null);
  }

  /**
   * C6: the conversation closes: each open task is cancelled (its server is asked to stop;
   * the gateway's own calls are stopped) and recorded as cancelled with why. Nobody can ask
   * about them any more: their ids belong to this conversation.
   */
  async closeAll(reason: string): Promise<void> {
    const open = [...this.#entries.values()].filter((e) => !isEnded(e));
    await Promise.all(
      open.map((e) =>
        this.#cancel(
          e,
          `the conversation closed (${reason}); its open tasks are cancelled`,
          null,
        ).catch((error: unknown) => this.#hub.report(error)),
      ),
    );
    for (const entry of this.#entries.values()) this.#forget(entry);
  }

  /** C6: a task that outlived its time-to-live, or that its server no longer knows. */
  async expire(entry: TaskEntry, why: string): Promise<void> {
    this.#forget(entry);
    if (isEnded(entry)) return;
    entry.abort?.abort();
    await this.#record(entry, "expired", why);
    entry.outcome ??= {
      error: new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "Failed to retrieve task: Task has expired",
      ),
    };
    entry.end();
  }

  #add(fields: NewTaskEntry): TaskEntry {
    const entry = newTaskEntry(fields);
    this.#entries.set(entry.taskId, entry);
    if (entry.task.ttl !== null) {
      entry.expiry = setTimeout(
        () => void this.expire(entry, "its time-to-live ran out").catch((e) => this.#hub.report(e)),
        entry.task.ttl,
      );
      entry.expiry.unref();
    }
    return entry;
  }

  #ended(entry: TaskEntry): void {
    if (entry.upstreamTaskId !== null)
      this.#hub.upstreamTasks.remove(entry.extension, entry.upstreamTaskId);
    entry.end();
  }

  #forget(entry: TaskEntry): void {
    this.#entries.delete(entry.taskId);
    clearTimeout(entry.expiry ?? undefined);
    if (entry.upstreamTaskId !== null)
      this.#hub.upstreamTasks.remove(entry.extension, entry.upstreamTaskId);
  }

  async #record(entry: TaskEntry, status: TaskStatus, message: string | undefined): Promise<void> {
    if (this.#conversation.closed) return;
    try {
      await this.#conversation.recordTask({
        type: "ChangeTaskStatus",
        taskId: entry.taskId,
        status,
        ...(message === undefined ? {} : { message: this.#hub.host.redactor.redact(message) }),
      });
    } catch (error) {
      this.#hub.report(
        new Error(`task ${entry.taskId} (${status}) could not be recorded: ${String(error)}`),
      );
    }
  }

  /** A relayed task's status from its server; a task it no longer knows has expired. */
  async #refresh(entry: TaskEntry, extra: DownstreamExtra | null): Promise<void> {
    try {
      const task = await relayToTaskServer(this.#hub, this.peer, entry, "tasks/get", extra);
      await this.observe(entry, task as Task);
    } catch (error) {
      await this.#unlessGone(entry, error);
    }
  }

  async #fetchResult(entry: TaskEntry, extra: DownstreamExtra, signal: AbortSignal): Promise<void> {
    let result: Record<string, unknown>;
    try {
      result = await relayToTaskServer(
        this.#hub,
        this.peer,
        entry,
        "tasks/result",
        extra,
        TASK_RESULT_TIMEOUT_MS,
        signal,
      );
    } catch (error) {
      const failure = toProtocolError(error, this.#hub.host.redactor);
      if (signal.aborted) throw failure;
      if (isGone(failure)) await this.#unlessGone(entry, failure);
      // MCP: a task whose call failed answers tasks/result with the call's JSON-RPC error.
      entry.outcome ??= { error: failure };
      await this.observe(entry, { status: "failed", statusMessage: failure.message });
      return;
    }
    entry.outcome ??= { result: withoutRelatedTask(result) };
    // The result comes once the task ended; its status says how, when the server told it.
    if (!isEnded(entry)) await this.#refresh(entry, extra);
    if (!isEnded(entry))
      await this.observe(entry, { status: result.isError === true ? "failed" : "completed" });
  }

  /** The server does not know the task (-32602): it expired there. Anything else is rethrown. */
  async #unlessGone(entry: TaskEntry, error: unknown): Promise<void> {
    const e = toProtocolError(error, this.#hub.host.redactor);
    if (!isGone(e)) throw e;
    await this.expire(entry, `its server no longer knows it (${e.message})`);
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      "Failed to retrieve task: Task not found",
    );
  }

  async #cancel(entry: TaskEntry, message: string, extra: DownstreamExtra | null): Promise<void> {
    if (entry.runner === "gateway") {
      entry.abort?.abort();
      entry.outcome ??= {
        error: new ProtocolError(
          ProtocolErrorCode.InternalError,
          `Task ${entry.taskId} was cancelled`,
        ),
      };
      await this.observe(entry, { status: "cancelled", statusMessage: message });
      return;
    }
    try {
      const task = (await relayToTaskServer(
        this.#hub,
        this.peer,
        entry,
        "tasks/cancel",
        extra,
        extra ? this.#hub.requestTimeoutMs : CANCEL_ON_CLOSE_MS,
      )) as Task;
      // The client's own cancel keeps the server's words; a close says why it happened.
      await this.observe(entry, {
        ...task,
        statusMessage: extra ? (task.statusMessage ?? message) : message,
      });
    } catch (error) {
      if (extra) throw toProtocolError(error, this.#hub.host.redactor);
      // Closing: the server could not be told; the task is still over for this conversation.
      await this.observe(entry, {
        status: "cancelled",
        statusMessage: `${message}; its server could not be told: ${String(error)}`,
      });
    }
  }
}
