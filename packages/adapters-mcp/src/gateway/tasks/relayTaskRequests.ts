import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ConversationTasks } from "./conversationTasks.js";

/**
 * G4: `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` answered from this
 * conversation's tasks only (another conversation's task id is "not found"), relayed to
 * the server that runs each task.
 */
export function relayTaskRequests(server: Server, tasks: () => Promise<ConversationTasks>): void {
  server.setRequestHandler(
    GetTaskRequestSchema,
    async (request, extra) => (await tasks()).get(request.params.taskId, extra) as never,
  );
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => {
    const own = await tasks();
    return (await own.result(own.find(request.params.taskId), extra)) as never;
  });
  server.setRequestHandler(
    ListTasksRequestSchema,
    async (request, extra) => (await tasks()).list(request.params?.cursor, extra) as never,
  );
  server.setRequestHandler(
    CancelTaskRequestSchema,
    async (request, extra) => (await tasks()).cancel(request.params.taskId, extra) as never,
  );
}
