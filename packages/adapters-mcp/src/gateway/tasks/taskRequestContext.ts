import type { DownstreamExtra } from "../downstreamPeer.js";
import type { GatewayHub } from "../gatewayHub.js";
import type { ConversationTasks } from "./conversationTasks.js";
import { isEnded, type TaskEntry, withRelatedTask } from "./taskEntry.js";

type Message = { method: string; params?: Record<string, unknown> };

/**
 * G4: where a server's requests and notifications go while the gateway runs a task's call:
 * to the task's client, tagged with the task (MCP's related-task key), on its `tasks/result`
 * when one waits, else on its own. While the client answers a request the task is
 * `input_required`.
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
  const context = {
    signal: entry.abort?.signal ?? new AbortController().signal,
    sendNotification: (n: Message) => {
      const waiting = entry.waiting.at(-1);
      return waiting
        ? waiting.sendNotification(tagged(n))
        : tasks.peer.server.notification(tagged(n));
    },
    sendRequest: async (request: Message, schema: never, options?: never) => {
      await tasks.observe(entry, { status: "input_required", statusMessage: request.method });
      try {
        const waiting = entry.waiting.at(-1);
        return waiting
          ? await waiting.sendRequest(tagged(request), schema, options)
          : await tasks.peer.server.request(tagged(request), schema, options);
      } finally {
        if (!isEnded(entry))
          await tasks.observe(entry, { status: "working" }).catch((e) => hub.report(e));
      }
    },
  };
  return context as unknown as DownstreamExtra;
}
