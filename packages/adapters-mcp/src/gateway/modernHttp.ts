import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type NodeIncomingMessageLike,
  type NodeMcpRequestHandler,
  toNodeHandler,
} from "@modelcontextprotocol/node";
import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import type { StandaloneConversation } from "../conversation/standaloneConversation.js";
import type { ToolledgerHost } from "../host/toolledgerHost.js";
import { createGatewayServer, type Downstream, modernServer } from "./createGatewayServer.js";
import type { GatewayHub } from "./gatewayHub.js";
import type { GatewayOptions } from "./gatewayOptions.js";
import { MODERN_METHODS, servedCacheHints } from "./modernEra.js";

interface ModernConversation {
  downstream: Downstream;
  handler: McpHttpHandler;
  node: NodeMcpRequestHandler;
}

/**
 * V1 over HTTP: 2026-07-28 clients, served per request by the SDK's `createMcpHandler`
 * (`legacy: 'reject'`: envelope and header checks, `server/discover`, `subscriptions/listen`,
 * the spec's error codes and statuses), with no session. A conversation is named by the
 * endpoint's path, `<path>/c/<id>` (the stream `<id>`, opened or resumed at its first
 * request); requests to the bare path share one conversation of this gateway. Each
 * conversation keeps its own gateway server (never connected: its handlers, deferral and
 * calls, C4) and its own handler, whose listen streams hear that conversation's list changes
 * only (C2); each request gets a fresh SDK server carrying the conversation's handlers.
 */
export class ModernConversations {
  readonly #source: ToolledgerHost | StandaloneConversation;
  readonly #options: GatewayOptions;
  readonly #hub: GatewayHub;
  readonly #report: (error: Error) => void;
  readonly #open = new Map<string, ModernConversation>();
  #closed = false;

  constructor(
    source: ToolledgerHost | StandaloneConversation,
    options: GatewayOptions & { hub: GatewayHub },
    report: (error: Error) => void,
  ) {
    this.#source = source;
    this.#options = options;
    this.#hub = options.hub;
    this.#report = report;
  }

  /** Serves one HTTP request of a 2026-07-28 client to conversation `id` (null: the endpoint's). */
  async handle(
    id: string | null,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): Promise<void> {
    if (this.#closed) {
      res.writeHead(503, { "content-type": "text/plain" }).end("the gateway is stopping");
      return;
    }
    await this.#conversation(id).node(req as NodeIncomingMessageLike, res, body);
  }

  /** Closes every conversation with `reason` (C3 marker) and ends their listen streams. */
  async close(reason: string): Promise<void> {
    this.#closed = true;
    const open = [...this.#open.values()];
    this.#open.clear();
    await Promise.allSettled(
      open.map(async (c) => {
        await c.handler.close();
        await c.downstream.dispose(reason);
      }),
    );
  }

  #conversation(id: string | null): ModernConversation {
    const key = id ?? "";
    const known = this.#open.get(key);
    if (known) return known;
    const options = this.#options;
    const host = this.#hub.host;
    let handler: McpHttpHandler | null = null;
    const downstream = createGatewayServer(
      this.#source,
      "streamable_http",
      {
        ...options,
        conversation: { ...options.conversation, ...(id === null ? {} : { id }) },
      },
      {
        era: "modern",
        onListChanged: (list) => {
          if (list === "tools") handler?.notify.toolsChanged();
          else if (list === "prompts") handler?.notify.promptsChanged();
          else handler?.notify.resourcesChanged();
        },
      },
    );
    const deferral = (options.conversation?.deferral?.mode ?? "off") !== "off";
    handler = createMcpHandler(
      () => {
        const server = modernServer(
          options,
          downstream.instructions(),
          servedCacheHints(host, deferral),
        );
        for (const method of MODERN_METHODS) {
          const handle = downstream.handlers.get(method);
          if (handle) server.setRequestHandler(method, handle as never);
        }
        return server;
      },
      { legacy: "reject", onerror: (error) => this.#rejected(error) },
    );
    const made = { downstream, handler, node: toNodeHandler(handler, { onerror: this.#report }) };
    this.#open.set(key, made);
    return made;
  }

  /** The SDK reports every request it refuses (a client's mistake, answered): only failures go on. */
  #rejected(error: Error): void {
    if (/^Rejected |Unsupported protocol version/.test(error.message)) return;
    this.#report(error);
  }
}
