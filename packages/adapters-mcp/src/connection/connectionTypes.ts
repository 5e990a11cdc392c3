import type { Progress } from "@modelcontextprotocol/client";
import { z } from "zod";
import type { Redactor } from "../redaction/redactor.js";
import type { ConnectionAuth } from "./connectionAuth.js";
import type { EraRequest } from "./eraNegotiation.js";

export interface ConnectOptions {
  /** How long starting the server and the MCP handshake may take. Default 30 s. */
  connectTimeoutMs?: number;
  /** Called for every `notifications/tools/list_changed` the server sends. */
  onListChanged?: () => void;
  /** Called once when the connection closes without `close()` being called (a crash or a kill). */
  onLost?: (reason: string) => void;
  /** Abandons a start in progress (the server is stopped; `connect` fails with START_FAILED). */
  signal?: AbortSignal;
  clientInfo?: { name: string; version: string };
  /** Removes secrets from every message this connection makes (a function: read when used). Default: this config's secrets. */
  redactor?: Redactor | (() => Redactor);
  /** V1: the era to reach the server in (probe, pin, or a verdict known before). Default: legacy, no probe. */
  era?: EraRequest;
  /** A1–A4: the server's OAuth client (HTTP and SSE): its fetch carries the bearer token. */
  auth?: ConnectionAuth;
  /** Largest message read from a stdio server (a larger reply fails its request, named as such). Default 64 MiB. */
  maxMessageBytes?: number;
  /** Problems that fail no request (a notification over the size limit, dropped). */
  onWarning?: (message: string) => void;
  /** G1: every other notification the server sends (log messages, resource updates, prompt and resource list changes). */
  onNotification?: (notification: UpstreamMessage) => void;
  /**
   * G1: requests the server sends (sampling, elicitation), answered with the handler's result
   * or error. Without a handler the server gets "method not found".
   */
  onRequest?: (request: UpstreamMessage, signal: AbortSignal) => Promise<Record<string, unknown>>;
}

/** A JSON-RPC request or notification from the server, as sent. */
export interface UpstreamMessage {
  method: string;
  params?: Record<string, unknown>;
}

export interface RequestLimits {
  timeoutMs: number;
  signal?: AbortSignal;
  /** G1: the server's progress for this request; only then is a progress token sent up. */
  onprogress?: (progress: Progress) => void;
  /** A tools/call's result, told as soon as it is read and checked, before the request resolves. */
  onResult?: (result: ToolCallResult) => void;
}

/**
 * Client capabilities toolledger declares upstream: it relays sampling and elicitation to
 * the downstream client that caused them (G1), and answers "not supported" when that client
 * did not declare them.
 */
export const UPSTREAM_CLIENT_CAPABILITIES = { sampling: {}, elicitation: {} } as const;

/** A tool call result as the server sent it (checked loosely; the host passes it on). */
export type ToolCallResult = { content?: unknown[]; isError?: boolean; [key: string]: unknown };

export const LooseResult = z.looseObject({});
export const ToolsPage = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});
export type ToolsPage = z.infer<typeof ToolsPage>;
