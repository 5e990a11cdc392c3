import {
  CancelTaskRequestSchema,
  CancelTaskResultSchema,
  GetTaskPayloadRequestSchema,
  GetTaskPayloadResultSchema,
  GetTaskRequestSchema,
  GetTaskResultSchema,
  ListTasksRequestSchema,
  ListTasksResultSchema,
} from "@modelcontextprotocol/core";
import type { Server } from "@modelcontextprotocol/server";
import type { ConversationTasks } from "./conversationTasks.js";

/**
 * G4: `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` answered from this
 * conversation's tasks only (another conversation's task id is "not found"), relayed to
 * the server that runs each task. SDK 2 dropped its 2025 tasks (SEP-2663) and keeps
 * `tasks/*` out of its typed methods, so they are registered in its custom-method form with
 * the 2025-11-25 wire schemas it still exports: the SDK checks the params, the handler gets them.
 */
export function relayTaskRequests(server: Server, tasks: () => Promise<ConversationTasks>): void {
  server.setRequestHandler(
    "tasks/get",
    { params: GetTaskRequestSchema.shape.params, result: GetTaskResultSchema },
    async (params, ctx) => (await tasks()).get(params.taskId, ctx),
  );
  server.setRequestHandler(
    "tasks/result",
    { params: GetTaskPayloadRequestSchema.shape.params, result: GetTaskPayloadResultSchema },
    async (params, ctx) => {
      const own = await tasks();
      return own.result(own.find(params.taskId), ctx);
    },
  );
  server.setRequestHandler(
    "tasks/list",
    { params: ListTasksRequestSchema.shape.params, result: ListTasksResultSchema },
    async (params, ctx) => (await tasks()).list(params?.cursor, ctx),
  );
  server.setRequestHandler(
    "tasks/cancel",
    { params: CancelTaskRequestSchema.shape.params, result: CancelTaskResultSchema },
    async (params, ctx) => (await tasks()).cancel(params.taskId, ctx),
  );
}
