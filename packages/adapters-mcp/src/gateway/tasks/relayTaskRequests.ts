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
import { z } from "zod";
import type { ConversationTasks } from "./conversationTasks.js";

/** The params as sent: each handler checks them against its 2025-11-25 request schema. */
const AS_SENT = z.looseObject({});

/**
 * A request checked as SDK 1 checked it (and SDK 2 still checks the spec methods it serves):
 * one that fails is answered -32603 with the schema's issues, as before, not the -32602 of
 * SDK 2's custom-method params check.
 */
function checked<P>(
  schema: { parse(request: unknown): { params?: P } },
  method: string,
  params: Record<string, unknown>,
): P {
  return schema.parse({ method, params }).params as P;
}

/**
 * G4: `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` answered from this
 * conversation's tasks only (another conversation's task id is "not found"), relayed to
 * the server that runs each task. SDK 2 dropped its 2025 tasks (SEP-2663) and keeps
 * `tasks/*` out of its typed methods, so they are registered in its custom-method form,
 * with the 2025-11-25 wire schemas it still exports.
 */
export function relayTaskRequests(server: Server, tasks: () => Promise<ConversationTasks>): void {
  server.setRequestHandler(
    "tasks/get",
    { params: AS_SENT, result: GetTaskResultSchema },
    async (params, ctx) => {
      const { taskId } = checked(GetTaskRequestSchema, "tasks/get", params);
      return (await tasks()).get(taskId, ctx);
    },
  );
  server.setRequestHandler(
    "tasks/result",
    { params: AS_SENT, result: GetTaskPayloadResultSchema },
    async (params, ctx) => {
      const { taskId } = checked(GetTaskPayloadRequestSchema, "tasks/result", params);
      const own = await tasks();
      return own.result(own.find(taskId), ctx);
    },
  );
  server.setRequestHandler(
    "tasks/list",
    { params: AS_SENT, result: ListTasksResultSchema },
    async (params, ctx) => {
      const cursor = checked(ListTasksRequestSchema, "tasks/list", params)?.cursor;
      return (await tasks()).list(cursor, ctx);
    },
  );
  server.setRequestHandler(
    "tasks/cancel",
    { params: AS_SENT, result: CancelTaskResultSchema },
    async (params, ctx) => {
      const { taskId } = checked(CancelTaskRequestSchema, "tasks/cancel", params);
      return (await tasks()).cancel(taskId, ctx);
    },
  );
}
