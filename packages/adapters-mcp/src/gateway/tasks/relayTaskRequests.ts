import { CancelTaskRequestSchema, GetTaskPayloadRequestSchema, GetTaskRequestSchema, ListTasksRequestSchema } from "@modelcontextprotocol/core";
import type { Server } from "@modelcontextprotocol/server";
import type { ConversationTasks } from "./conversationTasks.js";

/**
 * G4: `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` answered from this
 * conversation's tasks only (another conversation's task id is "not found"), relayed to
 * the server that runs each task.
 */
export function relayTaskRequests(server: Server, tasks: () => Promise<ConversationTasks>): void {
  /* @mcp-codemod-error Task handler registration: setRequestHandler(GetTaskRequestSchema, ...). The experimental tasks feature was removed in v2 (SEP-2663); the tasks/* method strings are not part of the typed RequestMethod surface. Remove this registration. See docs/migration/upgrade-to-v2.md#experimental-tasks-interception-removed. */
  server.setRequestHandler(
    GetTaskRequestSchema,
    /* @mcp-codemod-error The context object is forwarded to (await tasks()).get(…) — its property shape changed in v2 (e.g. extra.signal is now ctx.mcpReq.signal, extra.sendRequest is ctx.mcpReq.send). Update the helper's parameter type and property accesses. */
    async (request, ctx) => (await tasks()).get(request.params.taskId, ctx) as never,
  );
  /* @mcp-codemod-error Task handler registration: setRequestHandler(GetTaskPayloadRequestSchema, ...). The experimental tasks feature was removed in v2 (SEP-2663); the tasks/* method strings are not part of the typed RequestMethod surface. Remove this registration. See docs/migration/upgrade-to-v2.md#experimental-tasks-interception-removed. */
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, ctx) => {
    const own = await tasks();
    /* @mcp-codemod-error The context object is forwarded to own.result(…) — its property shape changed in v2 (e.g. extra.signal is now ctx.mcpReq.signal, extra.sendRequest is ctx.mcpReq.send). Update the helper's parameter type and property accesses. */
    return (await own.result(own.find(request.params.taskId), ctx)) as never;
  });
  /* @mcp-codemod-error Task handler registration: setRequestHandler(ListTasksRequestSchema, ...). The experimental tasks feature was removed in v2 (SEP-2663); the tasks/* method strings are not part of the typed RequestMethod surface. Remove this registration. See docs/migration/upgrade-to-v2.md#experimental-tasks-interception-removed. */
  server.setRequestHandler(
    ListTasksRequestSchema,
    /* @mcp-codemod-error The context object is forwarded to (await tasks()).list(…) — its property shape changed in v2 (e.g. extra.signal is now ctx.mcpReq.signal, extra.sendRequest is ctx.mcpReq.send). Update the helper's parameter type and property accesses. */
    async (request, ctx) => (await tasks()).list(request.params?.cursor, ctx) as never,
  );
  /* @mcp-codemod-error Task handler registration: setRequestHandler(CancelTaskRequestSchema, ...). The experimental tasks feature was removed in v2 (SEP-2663); the tasks/* method strings are not part of the typed RequestMethod surface. Remove this registration. See docs/migration/upgrade-to-v2.md#experimental-tasks-interception-removed. */
  server.setRequestHandler(
    CancelTaskRequestSchema,
    /* @mcp-codemod-error The context object is forwarded to (await tasks()).cancel(…) — its property shape changed in v2 (e.g. extra.signal is now ctx.mcpReq.signal, extra.sendRequest is ctx.mcpReq.send). Update the helper's parameter type and property accesses. */
    async (request, ctx) => (await tasks()).cancel(request.params.taskId, ctx) as never,
  );
}
