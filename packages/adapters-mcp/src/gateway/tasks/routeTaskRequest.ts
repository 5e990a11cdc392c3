import type { UpstreamMessage } from "../../connection/extensionConnection.js";
import type { DownstreamExtra, Peer } from "../downstreamPeer.js";
import type { HubServices } from "../hubServices.js";
import { relatedTaskId, withRelatedTask } from "./taskEntry.js";

/**
 * G4: a server's request for one of its tasks (MCP's related-task key: an input_required
 * elicitation or sampling) goes to the client that owns the task, on its waiting
 * `tasks/result` (or plain call) when there is one, with the gateway's task id in place of
 * the server's, or none for a task the client does not know. Null: not a task's request.
 */
export function routeTaskRequest(
  hub: HubServices,
  extension: string,
  request: UpstreamMessage,
): { peer: Peer; extra: DownstreamExtra | null; request: UpstreamMessage } | null {
  const upstreamId = relatedTaskId(request.params);
  if (upstreamId === null) return null;
  const found = hub.upstreamTasks.find(extension, upstreamId);
  if (!found) return null;
  const { tasks, entry } = found;
  const meta = withRelatedTask(
    request.params?._meta as Record<string, unknown> | undefined,
    entry.requested ? entry.taskId : null,
  );
  const { _meta: _up, ...params } = request.params ?? {};
  return {
    peer: tasks.peer,
    extra: entry.waiting.at(-1) ?? null,
    request: { method: request.method, params: meta ? { ...params, _meta: meta } : params },
  };
}
