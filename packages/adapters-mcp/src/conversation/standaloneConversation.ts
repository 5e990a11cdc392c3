import type {
  DeferralMode,
  Diagnostic,
  EventStore,
  ListToolsOptions,
  ModelView,
  RegisteredTool,
  State,
  StateOptions,
} from "@toolledger/core";
import { merge, type Observable } from "rxjs";
import type { AdapterError } from "../adapterError.js";
import type { ExtensionConfig } from "../extensionConfig.js";
import type { AddResult, ExtensionStatus } from "../host/extensionStatus.js";
import type { HostOptions } from "../host/hostOptions.js";
import { ToolledgerHost } from "../host/toolledgerHost.js";
import type { StreamEvent } from "../ledger/streamEvent.js";
import type { CallToolOptions, CallToolOutcome } from "./callToolTypes.js";
import { Conversation } from "./conversation.js";
import type { ConversationOptions } from "./conversationOptions.js";
import type { EnableToolsOutcome } from "./enableTools.js";

export interface StandaloneConversationOptions extends Omit<HostOptions, "state"> {
  /** The conversation stream. Default `conv-…`; an existing conversation is resumed. */
  streamId?: string;
  /** The registry stream. Default `host-…`. */
  registryStreamId?: string;
  state?: StateOptions;
  /** See ConversationOptions. */
  conversation?: Omit<ConversationOptions, "id">;
}

/**
 * A conversation with a host of its own: the shape of a single-user agent (and of the first
 * release's API, where it was called ToolledgerSession). Registry work goes to `host`, the
 * model's side to `conversation`; each writes its own stream (C1). Hosts that serve several
 * conversations use ToolledgerHost and openConversation directly.
 */
export class StandaloneConversation {
  readonly host: ToolledgerHost;
  readonly conversation: Conversation;
  /** Events of both streams, once stored. */
  readonly events$: Observable<StreamEvent>;
  /** The conversation's state (registry composed in). */
  readonly state$: Observable<State>;
  readonly errors$: Observable<AdapterError>;

  private constructor(host: ToolledgerHost, conversation: Conversation) {
    this.host = host;
    this.conversation = conversation;
    this.events$ = merge(host.events$, conversation.events$);
    this.state$ = conversation.state$;
    this.errors$ = merge(host.errors$, conversation.errors$);
  }

  static async open(options: StandaloneConversationOptions = {}): Promise<StandaloneConversation> {
    const { streamId, conversation: conversationOptions, ...hostOptions } = options;
    const host = await ToolledgerHost.open(hostOptions);
    try {
      const conversation = await Conversation.open(host, {
        transport: "in_process",
        ...conversationOptions,
        ...(streamId ? { id: streamId } : {}),
      });
      return new StandaloneConversation(host, conversation);
    } catch (error) {
      await host.close();
      throw error;
    }
  }

  get store(): EventStore {
    return this.host.store;
  }

  /** The conversation stream. */
  get streamId(): string {
    return this.conversation.id;
  }

  /** The registry stream. */
  get registryStreamId(): string {
    return this.host.streamId;
  }

  get state(): State {
    return this.conversation.state;
  }

  addExtension(config: ExtensionConfig): Promise<void> {
    return this.host.addExtension(config);
  }

  addExtensions(configs: readonly ExtensionConfig[]): Promise<AddResult[]> {
    return this.host.addExtensions(configs);
  }

  removeExtension(name: string): Promise<void> {
    return this.host.removeExtension(name);
  }

  reconnect(name: string): Promise<void> {
    return this.host.reconnect(name);
  }

  extensions(): ExtensionStatus[] {
    return this.host.extensions();
  }

  refresh(): Promise<void> {
    return this.host.refresh();
  }

  settled(): Promise<void> {
    return this.host.settled();
  }

  listTools(options: ListToolsOptions = {}): RegisteredTool[] {
    return this.conversation.listTools(options);
  }

  modelView(): ModelView {
    return this.conversation.modelView();
  }

  diagnostics(): Diagnostic[] {
    return this.conversation.diagnostics();
  }

  configureDeferral(mode: DeferralMode, alwaysLoad: string[] = []): Promise<void> {
    return this.conversation.configureDeferral(mode, alwaysLoad);
  }

  enableTools(callId: string, names: string[]): Promise<EnableToolsOutcome> {
    return this.conversation.enableTools(callId, names);
  }

  /** D5 two steps: see Conversation.requestEnableTools. */
  requestEnableTools(callId: string, names: string[]): Promise<void> {
    return this.conversation.requestEnableTools(callId, names);
  }

  approveEnableTools(callId: string): Promise<EnableToolsOutcome> {
    return this.conversation.approveEnableTools(callId);
  }

  denyEnableTools(callId: string, reason: string): Promise<EnableToolsOutcome> {
    return this.conversation.denyEnableTools(callId, reason);
  }

  compact(): Promise<void> {
    return this.conversation.compact();
  }

  clear(): Promise<void> {
    return this.conversation.clear();
  }

  callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): Promise<CallToolOutcome> {
    return this.conversation.callTool(name, args, options);
  }

  /** Closes the conversation (C3 marker), then disconnects every extension. The store stays open. */
  async close(): Promise<void> {
    try {
      await this.conversation.close("session closed");
    } finally {
      await this.host.close();
    }
  }
}

/** Opens a standalone conversation: one host and one conversation (see StandaloneConversation.open). */
export function openStandaloneConversation(
  options: StandaloneConversationOptions = {},
): Promise<StandaloneConversation> {
  return StandaloneConversation.open(options);
}
