import { RELATED_TASK_META_KEY } from "@modelcontextprotocol/server";
import type { DownstreamExtra } from "../downstreamPeer.js";
import type { GatewayHub } from "../gatewayHub.js";
import type { ConversationTasks } from "./conversationTasks.js";
import { isEnded, type TaskEntry, withRelatedTask } from "./taskEntry.js";

type Message = { method: string; params?: Record<string, unknown> | undefined };
type Send = DownstreamExtra["mcpReq"]["send"];
/** `send`/`request` as they are called: a result schema and options, or options alone. */
type Relay = (request: never, ...rest: unknown[]) => Promise<unknown>;

/**
 * G4: where a server's requests and notifications go while the gateway runs a task's call:
 * to the task's client, tagged with the task (MCP's related-task key), on its `tasks/result`
 * when one waits, else on its own. While the client answers a request the task is
 * `input_required`. Shaped as the SDK's handler context (`ctx.mcpReq`), which is what the
 * gateway hands a server's requests to; its id and `_meta` name the task, not a request of
 * the client.
 */
export function taskRequestContext(
  hub: GatewayHub,
  tasks: ConversationTasks,
  entry: TaskEntry,
): DownstreamExtra {
  const tagged = (m: Message) => {
    const meta = withRelatedTask(
      m.params?._meta as Record<string, unknown> | undefined,
      entry.taskId,
    );
    return { ...m, params: { ...m.params, ...(meta ? { _meta: meta } : {}) } } as never;
  };
  const notify = (n: Message): Promise<void> => {
    const waiting = entry.waiting.at(-1);
    return waiting ? waiting.mcpReq.notify(tagged(n)) : tasks.peer.server.notification(tagged(n));
  };
  // Passed on as called: a result schema and options, or options alone (a spec method).
  const send = (async (request: Message, ...rest: unknown[]) => {
    await tasks.observe(entry, { status: "input_required", statusMessage: request.method });
    try {
      const waiting = entry.waiting.at(-1);
      return waiting
        ? await (waiting.mcpReq.send as Relay)(tagged(request), ...rest)
        : await (tasks.peer.server.request.bind(tasks.peer.server) as Relay)(
            tagged(request),
            ...rest,
          );
    } finally {
      if (!isEnded(entry))
        await tasks.observe(entry, { status: "working" }).catch((e) => hub.report(e));
    }
  }) as Send;
  return {
    mcpReq: {
      id: `task:${entry.taskId}`,
      method: "tools/call",
      // It belongs to a task: what reads the key (sendProgress) takes `notify`, which routes it.
      _meta: { [RELATED_TASK_META_KEY]: { taskId: entry.taskId } },
      signal: entry.abort?.signal ?? new AbortController().signal,
      requestState: () => undefined,
      notify,
      send,
      log: (level, data, logger) =>
        notify({
          method: "notifications/message",
          params: { level, data, ...(logger === undefined ? {} : { logger }) },
        }),
      elicitInput: (params, options) =>
        send({ method: "elicitation/create", params }, options) as never,
      requestSampling: (params, options) =>
        send({ method: "sampling/createMessage", params }, options) as never,
    },
  };
}
