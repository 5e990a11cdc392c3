/**
 * goose's `Message` JSON as goose serialises it (block/goose conversation/message.rs:
 * camelCase, content tagged by `type`, `toolCall`/`toolResult` through tool_result_serde as
 * `{status, value}` / `{status, error}`, ErrorData displayed as `<code>: <message>`).
 * Fixtures only: written here from goose's serde, nothing of goose's is copied.
 */
export interface Msg {
  id?: string;
  role: "user" | "assistant";
  created: number;
  content: unknown[];
  metadata: { userVisible: boolean; agentVisible: boolean };
}

const VISIBLE = { userVisible: true, agentVisible: true };

export function text(t: string) {
  return { type: "text", text: t };
}

export function userText(created: number, t: string): Msg {
  return { role: "user", created, content: [text(t)], metadata: { ...VISIBLE } };
}

export function assistantText(created: number, t: string): Msg {
  return { role: "assistant", created, content: [text(t)], metadata: { ...VISIBLE } };
}

export function toolRequest(
  id: string,
  name: string,
  args: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
) {
  return {
    type: "toolRequest",
    id,
    toolCall: {
      status: "success",
      value: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
    },
  };
}

/** The model's malformed call (providers/formats/*: INVALID_PARAMS, -32602). */
export function malformedRequest(id: string, raw: string) {
  return {
    type: "toolRequest",
    id,
    toolCall: {
      status: "error",
      error: `-32602: Could not interpret tool use parameters for id ${id}: expected value at line 1 column 1. Raw arguments: '${raw}'`,
    },
  };
}

/** `CallToolResult` (rmcp: `content`, `isError`); `legacy` writes the older `Vec<Content>` value. */
export function toolResponse(
  id: string,
  t: string,
  opts: { isError?: boolean; legacy?: boolean } = {},
) {
  const content = [{ type: "text", text: t }];
  return {
    type: "toolResponse",
    id,
    toolResult: {
      status: "success",
      value: opts.legacy ? content : { content, isError: opts.isError ?? false },
    },
  };
}

/** goose could not dispatch the call (ErrorData; its Display is `<code>: <message>`). */
export function dispatchError(id: string, code: number, message: string) {
  return {
    type: "toolResponse",
    id,
    toolResult: { status: "error", error: `${code}: ${message}` },
  };
}

export const DECLINED =
  "The user has declined to run this tool. DO NOT attempt to call this tool again. If there are no alternative methods to proceed, clearly explain the situation and STOP.";

export function assistantCalls(created: number, t: string | null, ...requests: unknown[]): Msg {
  return {
    role: "assistant",
    created,
    content: [...(t ? [text(t)] : []), ...requests],
    metadata: { ...VISIBLE },
  };
}

export function userResponses(created: number, ...responses: unknown[]): Msg {
  return { role: "user", created, content: responses, metadata: { ...VISIBLE } };
}

export function systemNotification(created: number, msg: string): Msg {
  return {
    role: "assistant",
    created,
    content: [{ type: "systemNotification", notificationType: "inlineMessage", msg }],
    metadata: { userVisible: true, agentVisible: false },
  };
}

/** extensionmanager__manage_extensions (agents/extension_manager_extension.rs) and goose's answer. */
export function manageExtension(
  created: number,
  id: string,
  action: "enable" | "disable",
  name: string,
  prefix = "extensionmanager",
): [Msg, Msg] {
  const done =
    action === "enable"
      ? `The extension '${name}' has been installed successfully`
      : `The extension '${name}' has been disabled successfully`;
  return [
    assistantCalls(
      created,
      null,
      toolRequest(id, `${prefix}__manage_extensions`, { action, extension_name: name }),
    ),
    userResponses(created + 1, toolResponse(id, done)),
  ];
}

/** extensionmanager__load_tools (goose's deferred loading) and its `## <name>` answer. */
export function loadTools(
  created: number,
  id: string,
  args: { names?: string[]; query?: string },
  loaded: string[],
): [Msg, Msg] {
  const answer = loaded
    .map((n) => `## ${n}\nA tool.\nParameters (JSON Schema): {"type":"object"}`)
    .join("\n\n");
  return [
    assistantCalls(created, null, toolRequest(id, "extensionmanager__load_tools", args)),
    userResponses(created + 1, toolResponse(id, answer)),
  ];
}

/** One call and its answer, a second apart. */
export function call(
  created: number,
  id: string,
  name: string,
  args: Record<string, unknown>,
  answer: unknown,
): [Msg, Msg] {
  return [
    assistantCalls(created, null, toolRequest(id, name, args)),
    userResponses(created + 1, answer),
  ];
}
