import type { Readable, Writable } from "node:stream";
import type { Conversation } from "../conversation/conversation.js";
import type { ConversationOptions } from "../conversation/conversationOptions.js";
import type { ToolledgerHost } from "../host/toolledgerHost.js";
import { GatewayHub } from "./gatewayHub.js";
import type { HttpHostOptions } from "./httpHost.js";

export interface GatewayOptions {
  /** Server name announced to downstream clients. Default `toolledger-gateway`. */
  name?: string;
  version?: string;
  /** Where failures no downstream request can carry go (e.g. a notification that could not be sent, call events the store refused). Default: stderr. */
  onError?: (error: Error) => void;
  /** Where news that is no failure goes (held call events stored once the store is back). Default: stderr. */
  onNotice?: (message: string) => void;
  /** How each downstream session's conversation is opened (deferral, payload recording, …; an `id` resumes one, stdio only). */
  conversation?: Omit<ConversationOptions, "client" | "protocolVersion" | "transport">;
  /** Told when a downstream session's conversation opens and when it closes. */
  onConversation?: (change: { type: "opened" | "closed"; conversation: Conversation }) => void;
  /** Timeout of a request relayed to a server (prompts/get, resources/read…). Default 60 s. */
  requestTimeoutMs?: number;
  /**
   * V3: the most JSON (bytes) one page of a served list (tools, prompts, resources, templates)
   * holds; a longer list is served in pages (`nextCursor`). Default DEFAULT_LIST_PAGE_BYTES (8 MiB).
   */
  listPageBytes?: number;
  /**
   * What the downstream sessions of one host share (`createGatewayHub`). `serveGatewayStdio`
   * and `serveGatewayHttp` make it; `createGatewayServer` without it makes one for its session
   * alone, and one host is served by one hub at a time.
   */
  hub?: GatewayHub;
}

export interface HttpGatewayOptions extends GatewayOptions {
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default `/mcp`. */
  path?: string;
  /** Bearer token every request must carry; required to bind beyond loopback (see HttpHostOptions). */
  token?: string;
  /** Browser origins allowed besides loopback ones. */
  allowedOrigins?: readonly string[];
  /** Other paths served behind the same access checks (see `HttpHostOptions.routes`). */
  routes?: HttpHostOptions["routes"];
}

export interface StdioGatewayOptions extends GatewayOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Largest message read from the client; a larger request is answered with an error, and the gateway keeps serving. Default 64 MiB. */
  maxMessageBytes?: number;
  /** Called once the client's stream ended or failed: nothing more can arrive. */
  onClose?: () => void;
}

export interface Gateway {
  /** Stops serving; open conversations are closed with `reason` (default "gateway stopped"). */
  close(reason?: string): Promise<void>;
}

export interface HttpGateway extends Gateway {
  url: URL;
}

/** `options.onError`, else a line on stderr. */
export function errorReporter(options: GatewayOptions): (error: Error) => void {
  return (
    options.onError ??
    ((error: Error) => process.stderr.write(`toolledger gateway: ${error.message}\n`))
  );
}

/** The hub `options` give, else a new one for `host` with their error reporter and timeout. */
export function hubFor(host: ToolledgerHost, options: GatewayOptions): GatewayHub {
  return (
    options.hub ??
    new GatewayHub(host, {
      onError: errorReporter(options),
      ...(options.requestTimeoutMs !== undefined
        ? { requestTimeoutMs: options.requestTimeoutMs }
        : {}),
    })
  );
}
