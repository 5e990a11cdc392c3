// G4/C6: the tasks the gateway runs itself (a tool its server does not run as a task), in
// process: paging, an input_required elicitation, cancel, time-to-live, clear, refusals.
// server-everything is the real upstream; its `echo`, `trigger-elicitation-request` and
// `trigger-long-running-operation` say `taskSupport: "forbidden"`, so the gateway runs them.
// SDK 1.x client (devDependency) as a real legacy client: SDK 2 has no client for 2025 tasks (SEP-2663).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  RELATED_TASK_META_KEY,
  type Task,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolledgerEvent } from "@toolledger/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Conversation } from "../../conversation/conversation.js";
import { openHost, type ToolledgerHost } from "../../host/toolledgerHost.js";
import { everything } from "../../testing/fixtures.js";
import type { HttpGateway } from "../gatewayOptions.js";
import { serveGatewayHttp } from "../serveGatewayHttp.js";

let host: ToolledgerHost;
let gateway: HttpGateway;
const conversations: Conversation[] = [];

async function client(name: string) {
  const c = new Client({ name, version: "1.0.0" }, { capabilities: { elicitation: {} } });
  const statuses: Task[] = [];
  const elicited: unknown[] = [];
  c.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
    statuses.push(n.params as Task);
  });
  c.setRequestHandler(ElicitRequestSchema, (request) => {
    elicited.push(request.params._meta?.[RELATED_TASK_META_KEY]);
    return { action: "accept", content: { name: "Ada", color: "red" } };
  });
  await c.connect(new StreamableHTTPClientTransport(gateway.url));
  return { client: c, statuses, elicited };
}

function asTask(
  c: Client,
  name: string,
  args: Record<string, unknown>,
  task: { ttl?: number } = {},
) {
  return c.request(
    { method: "tools/call", params: { name, arguments: args, task } },
    CreateTaskResultSchema,
  );
}

async function ended(c: Client, taskId: string): Promise<Task> {
  for (let i = 0; i < 300; i++) {
    const t = (await c.experimental.tasks.getTask(taskId)) as Task;
    if (t.status !== "working" && t.status !== "input_required") return t;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`task ${taskId} did not end`);
}

/** The task events a conversation recorded. */
function taskEvents(c: Conversation): ToolledgerEvent[] {
  return recorded.get(c.id) ?? [];
}
const recorded = new Map<string, ToolledgerEvent[]>();

beforeAll(async () => {
  host = await openHost();
  await host.addExtensions([everything()]);
  gateway = await serveGatewayHttp(host, {
    onConversation: ({ type, conversation }) => {
      if (type !== "opened") return;
      conversations.push(conversation);
      recorded.set(conversation.id, []);
      conversation.events$.subscribe((e) => {
        if (e.event.type.startsWith("Task") || e.event.type.startsWith("ToolCall"))
          recorded.get(conversation.id)!.push(e.event);
      });
    },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await host?.close();
});

describe("G4 tasks the gateway runs itself", () => {
  it("G4 tasks/list pages through a conversation's tasks (50 a page, an opaque cursor); a bad cursor is -32602", async () => {
    const { client: c } = await client("pager");
    const ids: string[] = [];
    for (let i = 0; i < 55; i++)
      ids.push((await asTask(c, "everything__echo", { message: `m${i}` })).task.taskId);
    const first = await c.experimental.tasks.listTasks();
    expect(first.tasks.map((t) => t.taskId)).toEqual(ids.slice(0, 50));
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await c.experimental.tasks.listTasks(first.nextCursor);
    expect(second.tasks.map((t) => t.taskId)).toEqual(ids.slice(50));
    expect(second.nextCursor).toBeUndefined();
    await expect(c.experimental.tasks.listTasks("not-a-cursor")).rejects.toMatchObject({
      code: -32602,
    });
    const result = await c.experimental.tasks.getTaskResult(ids[3]!, CallToolResultSchema);
    expect(result.content).toEqual([{ type: "text", text: "Echo: m3" }]);
    await c.close();
  });

  it("G4/C6 its server's elicitation goes to the task's client with the task's id; the task is input_required meanwhile", async () => {
    const { client: c, statuses, elicited } = await client("asker");
    const made = await asTask(c, "everything__trigger-elicitation-request", {});
    const final = await ended(c, made.task.taskId);
    expect(final.status).toBe("completed");
    expect(elicited).toEqual([{ taskId: made.task.taskId }]);
    expect(statuses.map((s) => s.status)).toEqual(["input_required", "working", "completed"]);
    const result = await c.experimental.tasks.getTaskResult(made.task.taskId, CallToolResultSchema);
    expect(JSON.stringify(result.content)).toContain("Ada");
    const conversation = conversations.at(-1)!;
    const events = taskEvents(conversation);
    expect(events.map((e) => e.type)).toEqual([
      "ToolCallStarted",
      "TaskCreated",
      "TaskStatusChanged",
      "TaskStatusChanged",
      "ToolCallFinished",
      "TaskStatusChanged",
    ]);
    expect(events[1]).toMatchObject({ runner: "gateway", upstreamTaskId: null });
    expect(events[2]).toMatchObject({ status: "input_required", message: "elicitation/create" });
    expect(events[4]).toMatchObject({ type: "ToolCallFinished", outcome: "ok" });
    await c.close();
  });

  it("G4/C6 tasks/cancel stops the gateway's call (its server is told) and the call ends cancelled", async () => {
    const { client: c } = await client("canceller");
    const made = await asTask(c, "everything__trigger-long-running-operation", {
      duration: 10,
      steps: 5,
    });
    const cancelled = await c.experimental.tasks.cancelTask(made.task.taskId);
    expect(cancelled.status).toBe("cancelled");
    await expect(
      c.experimental.tasks.getTaskResult(made.task.taskId, CallToolResultSchema),
    ).rejects.toMatchObject({ code: -32603 });
    const events = taskEvents(conversations.at(-1)!);
    await expect
      .poll(() => events.find((e) => e.type === "ToolCallFinished"))
      .toMatchObject({ outcome: "cancelled" });
    await c.close();
  });

  it("C6 a task that outlives its time-to-live is forgotten and recorded expired", async () => {
    const { client: c } = await client("expirer");
    const made = await asTask(
      c,
      "everything__trigger-long-running-operation",
      { duration: 10, steps: 5 },
      { ttl: 300 },
    );
    expect(made.task.ttl).toBe(300);
    await new Promise((r) => setTimeout(r, 600));
    await expect(c.experimental.tasks.getTask(made.task.taskId)).rejects.toMatchObject({
      code: -32602,
    });
    expect(taskEvents(conversations.at(-1)!)).toContainEqual(
      expect.objectContaining({
        type: "TaskStatusChanged",
        status: "expired",
        message: "its time-to-live ran out",
      }),
    );
    await c.close();
  });

  it("C6 a clear leaves the conversation's tasks running", async () => {
    const { client: c } = await client("clearer");
    const made = await asTask(c, "everything__trigger-long-running-operation", {
      duration: 1,
      steps: 2,
    });
    await conversations.at(-1)!.clear();
    expect((await c.experimental.tasks.getTask(made.task.taskId)).status).toBe("working");
    expect((await ended(c, made.task.taskId)).status).toBe("completed");
    await c.close();
  });

  it("C6 a client that leaves cancels its open tasks, recorded before its conversation closes", async () => {
    const { client: c } = await client("leaver");
    const made = await asTask(c, "everything__trigger-long-running-operation", {
      duration: 10,
      steps: 5,
    });
    const conversation = conversations.at(-1)!;
    // The client ends its MCP session (HTTP DELETE), as a host does when a chat closes.
    await (c.transport as StreamableHTTPClientTransport).terminateSession();
    await c.close();
    await expect.poll(() => conversation.closed).toBe(true);
    const cancelled = taskEvents(conversation).find((e) => e.type === "TaskStatusChanged");
    expect(cancelled).toMatchObject({
      taskId: made.task.taskId,
      status: "cancelled",
      message: "the conversation closed (client ended the session); its open tasks are cancelled",
    });
  });

  it("G2 for tasks: an unknown tool is -32602; a deferred tool that is not enabled is a task that failed with what to do", async () => {
    const { client: c } = await client("refused");
    await expect(asTask(c, "everything__nope", {})).rejects.toMatchObject({ code: -32602 });
    await conversations.at(-1)!.configureDeferral("lookup");
    const made = await asTask(c, "everything__echo", { message: "x" });
    expect((await ended(c, made.task.taskId)).status).toBe("failed");
    const result = await c.experimental.tasks.getTaskResult(made.task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("enable_tools");
    await c.close();
  });
});
