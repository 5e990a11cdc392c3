import type { CallToolResult, Server, Tool } from "@modelcontextprotocol/server";
import { modelView } from "@toolledger/core";
import { distinctUntilChanged, map, type Subscription, skip } from "rxjs";
import { AdapterError } from "../adapterError.js";
import { sdkInitializeHandler } from "../connection/sdkPatches.js";
import { Conversation } from "../conversation/conversation.js";
import type { StandaloneConversation } from "../conversation/standaloneConversation.js";
import type { ToolledgerHost } from "../host/toolledgerHost.js";
import type { ToolCallHandler } from "./answerToolCalls.js";
import { GATEWAY_CAPABILITIES } from "./gatewayCapabilities.js";
import { gatewayInstructions, handshakePrompt } from "./gatewayInstructions.js";
import { errorReporter, type GatewayOptions, hubFor } from "./gatewayOptions.js";
import { gatewayTools, gatewayView } from "./gatewayTools.js";
import { relayCatalog } from "./relayCatalog.js";
import { relayLogging } from "./relayLogging.js";
import { relayToolCall } from "./relayToolCall.js";
import { DEFAULT_LIST_PAGE_BYTES, servedPage } from "./servedPages.js";
import { ConversationTasks } from "./tasks/conversationTasks.js";
import { hasRequiredTasks } from "./tasks/hasRequiredTasks.js";
import { markLostTasks } from "./tasks/markLostTasks.js";
import { callRequiredTask, relayTaskCall, taskSupportOf } from "./tasks/relayTaskCall.js";
import { relayTaskRequests } from "./tasks/relayTaskRequests.js";
import { TaskServer } from "./tasks/taskServer.js";

const toolName = (tool: { name: string }) => tool.name;

/** One downstream MCP session: its SDK server and its conversation (C2). */
export interface Downstream {
  server: Server;
  /** A client's `tools/call`, as the SDK server's handler answers it (see `answerToolCalls`). */
  callTool: ToolCallHandler;
  /** The conversation, opened when the client has initialized (or at its first request). */
  conversation(): Promise<Conversation>;
  /** Stops following the conversation and closes it with `reason` (C3 marker). */
  dispose(reason: string): Promise<void>;
}

/**
 * An MCP server for one downstream session (C2): tools/list is its conversation's model
 * view, tools/call goes through `conversation.callTool` (R13, D9, enable_tools, C4), and
 * every change of the list it serves (its own enable, a clear from the CLI, an upstream
 * change that reaches it) sends `notifications/tools/list_changed` to this client only.
 * The conversation is opened with the client's `clientInfo` once it has initialized.
 */
export function createGatewayServer(
  source: ToolledgerHost | StandaloneConversation,
  transport: "stdio" | "streamable_http",
  options: GatewayOptions = {},
): Downstream {
  const report = errorReporter(options);
  const fixed = "conversation" in source ? source.conversation : null;
  const host = "conversation" in source ? source.host : source;
  const server = new TaskServer(
    { name: options.name ?? "toolledger-gateway", version: options.version ?? "0.1.0" },
    { capabilities: GATEWAY_CAPABILITIES },
  );
  const hub = hubFor(host, options);
  const peer = hub.attach(server);
  let protocolVersion: string | null = null;
  const sdkInitialize = sdkInitializeHandler(server);
  server.setRequestHandler("initialize", async (request) => {
    const result = await sdkInitialize(request);
    protocolVersion = result.protocolVersion;
    // Instructions are fixed at the handshake: the servers ready now (serve starts them in
    // the background), not the ones ready when this server object was made.
    const instructions = gatewayInstructions(
      host,
      fixed
        ? modelView(fixed.state).systemPrompt
        : handshakePrompt(host.state, options.conversation?.deferral),
    );
    return instructions ? { ...result, instructions } : result;
  });
  let opening: Promise<Conversation> | null = null;
  /** The conversation once it is open: a call then reaches it without a promise hop. */
  let opened: Conversation | null = null;
  /** G4: the conversation's tasks, once it is open. */
  let tasks: ConversationTasks | null = null;
  let subscription: Subscription | null = null;
  let disposed = false;
  const conversation = (): Promise<Conversation> => {
    opening ??= (async () => {
      const c =
        fixed ??
        (await Conversation.open(host, {
          ...options.conversation,
          client: server.getClientVersion() ?? null,
          protocolVersion,
          transport,
        }));
      if (disposed) {
        if (!fixed) await c.close("client disconnected");
        throw new AdapterError("SESSION_CLOSED", "the downstream session ended");
      }
      // C6: tasks a resumed conversation had open when its gateway stopped are lost.
      if (!fixed) await markLostTasks(c);
      tasks = new ConversationTasks(hub, peer, c);
      subscription = c.state$
        .pipe(
          map(gatewayView),
          distinctUntilChanged(),
          map((view) => view.signature),
          distinctUntilChanged(),
          skip(1),
        )
        .subscribe(() => {
          if (!server.transport) return;
          server
            .sendToolListChanged()
            .catch((error: unknown) =>
              report(new Error(`could not send tools/list_changed downstream: ${String(error)}`)),
            );
        });
      if (!fixed) {
        // C4: what becomes of its call events reaches the user (a standalone conversation reports its own).
        c.errors$.subscribe({ next: report });
        c.notices$.subscribe({
          next: options.onNotice ?? ((m) => process.stderr.write(`toolledger gateway: ${m}\n`)),
        });
        options.onConversation?.({ type: "opened", conversation: c });
      }
      opened = c;
      return c;
    })();
    return opening;
  };
  server.oninitialized = () => {
    conversation().catch((error: unknown) =>
      report(new Error(`could not open a conversation: ${String(error)}`)),
    );
  };
  const pageBytes = options.listPageBytes ?? DEFAULT_LIST_PAGE_BYTES;
  server.setRequestHandler("tools/list", async (request) => {
    // Issue 20: servers still starting are waited for, up to their startup grace.
    await host.untilListed();
    const tools = gatewayTools((await conversation()).state);
    // V3: in pages a client can read.
    const page = servedPage("tools", tools, toolName, request.params?.cursor, pageBytes);
    return page.nextCursor === undefined
      ? { tools: page.items as Tool[] }
      : { tools: page.items as Tool[], nextCursor: page.nextCursor };
  });
  const callTool: ToolCallHandler = async (params, extra) => {
    const c = opened ?? (await conversation());
    // G4: a task-augmented call; a plain call of a tool whose server requires a task.
    if (params.task) return relayTaskCall(hub, peer, c, tasks!, params, extra);
    if (hasRequiredTasks(c.state)) {
      const tool = taskSupportOf(hub, c.state, params.name);
      if (tool?.support === "required" && tool.serverRuns)
        return callRequiredTask(hub, peer, c, tasks!, params, extra);
    }
    return relayToolCall(hub, peer, c, params, extra) satisfies Promise<CallToolResult>;
  };
  // SDK 2 checks this handler's result against CallToolResult; a task-augmented call's
  // CreateTaskResult (G4) is checked as one instead by TaskServer (gateway/tasks/taskServer.ts).
  server.setRequestHandler(
    "tools/call",
    (request, ctx) => callTool(request.params, ctx) as Promise<CallToolResult>,
  );
  relayTaskRequests(server, async () => {
    await (opened ?? conversation());
    return tasks!;
  });
  relayLogging(hub, peer);
  const stopCatalog = relayCatalog(hub, peer, pageBytes);
  return {
    server,
    callTool,
    conversation,
    async dispose(reason: string) {
      if (disposed) return;
      disposed = true;
      subscription?.unsubscribe();
      stopCatalog();
      hub.detach(peer);
      if (!opening) return;
      const c = await opening.catch(() => null);
      // C6: a conversation that closes cancels its open tasks (recorded before the close).
      await tasks?.closeAll(reason);
      if (fixed) return;
      if (c) {
        await c.close(reason);
        options.onConversation?.({ type: "closed", conversation: c });
      }
    },
  };
}
