import { randomUUID } from "node:crypto";
import type {
  CallToolRequest,
  CallToolResult,
  CreateTaskResult,
  Task,
} from "@modelcontextprotocol/server";
import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import { resolveTool, type State } from "@toolledger/core";
import { AdapterError } from "../../adapterError.js";
import type { CallToolOutcome } from "../../conversation/callToolTypes.js";
import type { Conversation } from "../../conversation/conversation.js";
import { isCreateTaskResult } from "../../conversation/isCreateTaskResult.js";
import type { DownstreamExtra, Peer } from "../downstreamPeer.js";
import type { GatewayHub } from "../gatewayHub.js";
import { ProtocolError, toProtocolError } from "../protocolError.js";
import { errorResult, failureAnswer, refusalAnswer } from "../relayToolCall.js";
import type { ConversationTasks } from "./conversationTasks.js";
import { taskRequestContext } from "./taskRequestContext.js";

/** What a registry tool says of tasks, and whether its server can run them (G4). */
export function taskSupportOf(
  hub: GatewayHub,
  state: State,
  name: string,
): { extension: string; support: string | undefined; serverRuns: boolean } | null {
  const resolved = resolveTool(state, name);
  if (!resolved.ok) return null;
  const execution = resolved.tool.raw.execution as { taskSupport?: unknown } | undefined;
  const support = typeof execution?.taskSupport === "string" ? execution.taskSupport : undefined;
  const capable =
    hub.host.connection(resolved.extension)?.capabilities.tasks?.requests?.tools?.call !==
    undefined;
  return {
    extension: resolved.extension,
    support,
    serverRuns: capable && (support === "optional" || support === "required"),
  };
}

/**
 * G4: a task-augmented `tools/call`. A tool whose server runs tasks is called up
 * task-augmented and its task relayed under a gateway id; any other tool is called plainly
 * by the gateway, which runs the task itself. Either way the call is recorded (C4) and the
 * task's life with it (C6). A refusal the model can act on (D9, app-only) is a task that
 * failed with that refusal as its result; an unknown tool is `-32602`, as for a plain call.
 */
export async function relayTaskCall(
  hub: GatewayHub,
  peer: Peer,
  conversation: Conversation,
  tasks: ConversationTasks,
  params: CallToolRequest["params"],
  extra: DownstreamExtra,
): Promise<CreateTaskResult> {
  const { name, arguments: args, _meta, task } = params;
  tasks.checkRoom();
  const ttl = typeof task?.ttl === "number" && task.ttl > 0 ? task.ttl : undefined;
  const tool = taskSupportOf(hub, conversation.state, name);
  const callId = randomUUID();
  const meta = withoutProgressToken(_meta);
  if (tool?.serverRuns) {
    let end: (() => void) | undefined;
    let outcome: CallToolOutcome;
    try {
      outcome = await conversation.callTool(name, args ?? {}, {
        callId,
        signal: extra.mcpReq.signal,
        upstreamTask: task ?? {},
        ...(meta ? { meta } : {}),
        onStart: (extension) => {
          end = hub.track(peer, extension, extra);
        },
      });
    } catch (error) {
      throw toProtocolError(error, hub.host.redactor);
    } finally {
      end?.();
    }
    if (!outcome.ok) return refusedTask(tasks, callId, outcome);
    if (isCreateTaskResult(outcome.result)) {
      const created = outcome.result as CreateTaskResult;
      const entry = await tasks.relayed(callId, outcome.extension, created.task, true);
      return { ...created, task: { ...entry.task } };
    }
    // The server answered at once (it ignored the task): a task that already ended.
    const entry = await tasks.local(callId, outcome.extension, ttl, new AbortController());
    await tasks.settle(entry, { result: outcome.result });
    return { task: { ...entry.task } };
  }
  return gatewayTask(hub, peer, conversation, tasks, {
    name,
    args,
    callId,
    ttl,
    meta,
    extra,
    progressToken: _meta?.progressToken,
  });
}

/** G4: the gateway runs the call as a task: answered at once, the call goes on in the background. */
async function gatewayTask(
  hub: GatewayHub,
  peer: Peer,
  conversation: Conversation,
  tasks: ConversationTasks,
  call: {
    name: string;
    args: Record<string, unknown> | undefined;
    callId: string;
    ttl: number | undefined;
    meta: Record<string, unknown> | undefined;
    extra: DownstreamExtra;
    progressToken: unknown;
  },
): Promise<CreateTaskResult> {
  const abort = new AbortController();
  let created: ((task: Task) => void) | undefined;
  const started = new Promise<Task>((resolve) => {
    created = resolve;
  });
  let end: (() => void) | undefined;
  const token = call.progressToken;
  const running = conversation.callTool(call.name, call.args ?? {}, {
    callId: call.callId,
    signal: abort.signal,
    ...(call.meta ? { meta: call.meta } : {}),
    // MCP: the request's progress token stays valid for the task's life.
    ...(typeof token === "string" || typeof token === "number"
      ? {
          onprogress: (p) => {
            peer.server
              .notification({
                method: "notifications/progress",
                params: { ...p, progressToken: token },
              })
              .catch((error: unknown) => hub.report(error));
          },
        }
      : {}),
    onStart: async (extension) => {
      const entry = await tasks.local(call.callId, extension, call.ttl, abort);
      // The server's requests during the call (an elicitation) go to this task's client.
      end = hub.track(peer, extension, taskRequestContext(hub, tasks, entry));
      void running
        .then(
          (outcome) =>
            tasks.settle(entry, {
              result: outcome.ok ? outcome.result : errorResult(outcome.error.message),
            }),
          (error: unknown) =>
            tasks.settle(
              entry,
              error instanceof AdapterError && !error.serverAnswered
                ? { result: errorResult(`${error.code}: ${error.message}`) }
                : { error: toProtocolError(error, hub.host.redactor) },
              error instanceof Error ? error.message : String(error),
            ),
        )
        .catch((error: unknown) => hub.report(error))
        .finally(() => end?.());
      created?.({ ...entry.task });
    },
  });
  const first = await Promise.race([
    started.then((task) => ({ task })),
    running.then(
      (outcome) => ({ outcome }),
      (error: unknown) => ({ error }),
    ),
  ]);
  if ("task" in first) return { task: first.task };
  // It ended before any server saw it: a refusal, or the built-in enable_tools.
  if ("error" in first) throw toProtocolError(first.error, hub.host.redactor);
  if (!first.outcome.ok) return refusedTask(tasks, call.callId, first.outcome);
  const entry = await tasks.local(call.callId, "", call.ttl, abort);
  await tasks.settle(entry, { result: first.outcome.result });
  return { task: { ...entry.task } };
}

/**
 * G2 for a task: an unknown tool is a protocol error; a refusal the model can act on is a
 * task that failed with the refusal as its result (the call was recorded as refused, C4).
 */
async function refusedTask(
  tasks: ConversationTasks,
  callId: string,
  outcome: Extract<CallToolOutcome, { ok: false }>,
): Promise<CreateTaskResult> {
  if (outcome.error.code === "UNKNOWN_TOOL")
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, outcome.error.message);
  const entry = await tasks.local(callId, "", undefined, new AbortController());
  await tasks.settle(entry, { result: errorResult(outcome.error.message) }, outcome.error.message);
  return { task: { ...entry.task } };
}

/**
 * G4: a plain call of a tool whose server requires a task: the gateway makes the task on the
 * client's behalf, waits for its result (its server's requests reach the client on this
 * call), and answers the call with it; the client never sees the task. Cancelling the call
 * cancels the task.
 */
export async function callRequiredTask(
  hub: GatewayHub,
  peer: Peer,
  conversation: Conversation,
  tasks: ConversationTasks,
  params: CallToolRequest["params"],
  extra: DownstreamExtra,
): Promise<CallToolResult> {
  const callId = randomUUID();
  let end: (() => void) | undefined;
  let outcome: CallToolOutcome;
  const meta = withoutProgressToken(params._meta);
  try {
    outcome = await conversation.callTool(params.name, params.arguments ?? {}, {
      callId,
      signal: extra.mcpReq.signal,
      upstreamTask: {},
      ...(meta ? { meta } : {}),
      onStart: (extension) => {
        end = hub.track(peer, extension, extra);
      },
    });
  } catch (error) {
    return failureAnswer(error, hub);
  } finally {
    end?.();
  }
  if (!outcome.ok) return refusalAnswer(outcome);
  if (!isCreateTaskResult(outcome.result)) return outcome.result as CallToolResult;
  const created = outcome.result as CreateTaskResult;
  const entry = await tasks.relayed(callId, outcome.extension, created.task, false);
  const stop = () =>
    void tasks.cancelEntry(entry, "the client cancelled its call").catch((e) => hub.report(e));
  extra.mcpReq.signal.addEventListener("abort", stop, { once: true });
  try {
    return (await tasks.result(entry, extra)) as CallToolResult;
  } finally {
    extra.mcpReq.signal.removeEventListener("abort", stop);
  }
}

function withoutProgressToken(
  meta: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!meta) return undefined;
  const { progressToken: _token, ...rest } = meta;
  return Object.keys(rest).length > 0 ? rest : undefined;
}
