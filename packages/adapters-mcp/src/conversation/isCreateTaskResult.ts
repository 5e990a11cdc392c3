import type { ToolCallResult } from "../connection/extensionConnection.js";

/** A `CreateTaskResult` (MCP tasks): the answer of a task-augmented request a server accepted. */
export function isCreateTaskResult(result: ToolCallResult): boolean {
  const task = (result as { task?: unknown }).task;
  return (
    typeof task === "object" &&
    task !== null &&
    typeof (task as { taskId?: unknown }).taskId === "string"
  );
}
