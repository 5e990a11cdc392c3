import { CallToolRequestSchema, CreateTaskResultSchema } from "@modelcontextprotocol/core";
import {
  type JSONRPCRequest,
  ProtocolError,
  ProtocolErrorCode,
  type Result,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * G4: the gateway's SDK server, which answers a task-augmented `tools/call` with its task.
 * SDK 2 dropped 2025 tasks (SEP-2663) and checks every `tools/call` answer as a
 * CallToolResult, so a CreateTaskResult would fail as "Invalid tools/call result"; through
 * the SDK's hook for a subclass's checks (`_wrapHandler`), a call that carries `task` is
 * checked as SDK 1 checked it: the request as a `tools/call`, the answer as a
 * CreateTaskResult ("Invalid task creation result", -32602, when it is not). Every other
 * call, and every other method, is the SDK's.
 */
export class TaskServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const checked = super._wrapHandler(method, handler);
    if (method !== "tools/call") return checked;
    return async (request, ctx) => {
      if (!(request.params as { task?: unknown } | undefined)?.task) return checked(request, ctx);
      const valid = CallToolRequestSchema.safeParse(request);
      if (!valid.success)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid tools/call request: ${valid.error.message}`,
        );
      const created = CreateTaskResultSchema.safeParse(await handler(request, ctx));
      if (!created.success)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid task creation result: ${created.error.message}`,
        );
      return created.data;
    };
  }
}
