// The tools the server scenarios of @modelcontextprotocol/conformance 0.2.0-alpha.12 call
// (2025-11-25 and 2026-07-28 requirement sets), for the dual-era upstream (servers/scenarios.ts).
import type {
  CallToolResult,
  InputRequiredResult,
  Server,
  ServerContext,
} from "@modelcontextprotocol/server";
import { inputRequired, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { PNG, WAV } from "./conformanceCatalog.js";
import { objectSchema, sleep, text } from "./serve.js";

const noArgs = objectSchema();
const stringArg = (name: string, description: string) =>
  objectSchema({ [name]: { type: "string", description } }, [name]);

export const SCENARIO_TOOLS = [
  { name: "test_simple_text", description: "Returns a simple text", inputSchema: noArgs },
  { name: "test_image_content", description: "Returns a PNG image", inputSchema: noArgs },
  { name: "test_audio_content", description: "Returns a WAV clip", inputSchema: noArgs },
  { name: "test_embedded_resource", description: "Returns a resource", inputSchema: noArgs },
  {
    name: "test_multiple_content_types",
    description: "Returns text, image and resource",
    inputSchema: noArgs,
  },
  { name: "test_tool_with_logging", description: "Logs three messages", inputSchema: noArgs },
  {
    name: "test_tool_with_progress",
    description: "Reports progress 0, 50, 100",
    inputSchema: noArgs,
  },
  { name: "test_error_handling", description: "Always fails as a tool error", inputSchema: noArgs },
  {
    name: "test_sampling",
    description: "Asks the client's model (2025-11-25)",
    inputSchema: stringArg("prompt", "The prompt"),
  },
  {
    name: "test_elicitation",
    description: "Asks the user (2025-11-25)",
    inputSchema: stringArg("message", "What to ask"),
  },
  {
    name: "test_elicitation_sep1034_defaults",
    description: "Elicits with defaults",
    inputSchema: noArgs,
  },
  {
    name: "test_elicitation_sep1330_enums",
    description: "Elicits every enum form",
    inputSchema: noArgs,
  },
  {
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    // SEP-1613/SEP-2106: 2020-12 keywords a server must pass on as written.
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: {
          $anchor: "addressDef",
          type: "object",
          properties: { street: { type: "string" }, city: { type: "string" } },
        },
      },
      properties: {
        name: { type: "string" },
        address: { $ref: "#/$defs/address" },
        contactMethod: { type: "string", enum: ["phone", "email"] },
        phone: { type: "string" },
        email: { type: "string" },
      },
      allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
      if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a promise
      then: { required: ["phone"] },
      else: { required: ["email"] },
      additionalProperties: false,
    },
  },
  // SEP-2243: an argument mirrored into the `Mcp-Param-Region` header (2026-07-28).
  {
    name: "test_x_mcp_header",
    description: "Has an argument mirrored into a header",
    inputSchema: objectSchema({
      region: {
        type: "string",
        description: "Mirrored into Mcp-Param-Region",
        "x-mcp-header": "Region",
      },
      level: { type: "integer", description: "Not mirrored" },
    }),
  },
  {
    name: "test_reconnection",
    description: "Closes its SSE stream mid-call (2025-11-25, SEP-1699)",
    inputSchema: noArgs,
  },
  // server-stateless (2026-07-28) diagnostics.
  {
    name: "test_missing_capability",
    description: "Needs the client's sampling capability",
    inputSchema: noArgs,
  },
  {
    name: "test_streaming_elicitation",
    description: "Answers with a result only",
    inputSchema: noArgs,
  },
  { name: "test_logging_tool", description: "Logs at the request's logLevel", inputSchema: noArgs },
  {
    name: "test_trigger_tool_change",
    description: "Announces a tool list change",
    inputSchema: noArgs,
  },
  {
    name: "test_trigger_prompt_change",
    description: "Announces a prompt list change",
    inputSchema: noArgs,
  },
];

/** What a tool call may change beyond its own answer: the lists every client is told about. */
export interface ListChanges {
  toolsChanged(): void;
  promptsChanged(): void;
}

export async function callScenarioTool(
  server: Server,
  name: string,
  args: Record<string, unknown>,
  ctx: ServerContext,
  changes: ListChanges,
): Promise<CallToolResult | InputRequiredResult> {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  const log = (data: string) =>
    ctx.mcpReq.notify({
      method: "notifications/message",
      params: { level: "info", logger: "dual-era", data },
    });
  const progress = (value: number) =>
    progressToken === undefined
      ? Promise.resolve()
      : ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken, progress: value, total: 100 },
        });
  switch (name) {
    case "test_simple_text":
      return text("This is a simple text response for testing.");
    case "test_image_content":
      return { content: [{ type: "image", data: PNG, mimeType: "image/png" }] };
    case "test_audio_content":
      return { content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] };
    case "test_embedded_resource":
      return {
        content: [
          {
            type: "resource",
            resource: {
              uri: "test://embedded-resource",
              mimeType: "text/plain",
              text: "This is an embedded resource content.",
            },
          },
        ],
      };
    case "test_multiple_content_types":
      return {
        content: [
          { type: "text", text: "Multiple content types test:" },
          { type: "image", data: PNG, mimeType: "image/png" },
          {
            type: "resource",
            resource: {
              uri: "test://mixed-content-resource",
              mimeType: "application/json",
              text: '{"test":"data","value":123}',
            },
          },
        ],
      };
    case "test_tool_with_logging":
      await log("Tool execution started");
      await sleep(50);
      await log("Tool processing data");
      await sleep(50);
      await log("Tool execution completed");
      return text("Logging tool ran: 3 messages sent");
    case "test_tool_with_progress":
      await progress(0);
      await sleep(50);
      await progress(50);
      await sleep(50);
      await progress(100);
      return text("Progress tool ran");
    case "test_error_handling":
      return text("This tool intentionally returns an error for testing", true);
    case "test_sampling":
      return sample(server, ctx, String(args.prompt ?? ""));
    case "test_elicitation":
      return elicit(
        server,
        ctx,
        String(args.message ?? ""),
        {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        ["username", "email"],
      );
    case "test_elicitation_sep1034_defaults":
      return elicit(server, ctx, "Please review your profile", SEP1034_FIELDS, []);
    case "test_elicitation_sep1330_enums":
      return elicit(server, ctx, "Pick some options", SEP1330_FIELDS, []);
    case "test_reconnection":
      // The client reconnects with Last-Event-ID and gets the result from the event store.
      ctx.http?.closeSSE?.();
      await sleep(100);
      return text("Reconnection test completed");
    case "json_schema_2020_12_tool":
      return text(`hello ${String(args.name ?? "")}`);
    case "test_x_mcp_header":
      return text(`region=${String(args.region ?? "<none>")}`);
    case "test_missing_capability":
      // 2026-07-28: asks for sampling in-band; the SDK refuses the call with -32021 when the
      // request's envelope does not declare it (2025-11-25: the SDK sends the request itself).
      if (ctx.mcpReq.inputResponses?.pong !== undefined) return text("sampled");
      return inputRequired({
        inputRequests: {
          pong: inputRequired.createMessage({
            messages: [{ role: "user", content: { type: "text", text: "Reply with: pong" } }],
            maxTokens: 16,
          }),
        },
      });
    case "test_streaming_elicitation":
      return text("a result, and no request of the server's own on the response stream");
    case "test_logging_tool":
      // ctx.mcpReq.log honours the request's logLevel (2026-07-28: none without it).
      await ctx.mcpReq.log("info", "test_logging_tool ran");
      return text("logged at the request's level");
    case "test_trigger_tool_change":
      changes.toolsChanged();
      return text("tools/list_changed sent");
    case "test_trigger_prompt_change":
      changes.promptsChanged();
      return text("prompts/list_changed sent");
    default:
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
  }
}

const SEP1034_FIELDS = {
  name: { type: "string", default: "John Doe" },
  age: { type: "integer", default: 30 },
  score: { type: "number", default: 95.5 },
  status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
  verified: { type: "boolean", default: true },
};

const SEP1330_FIELDS = {
  untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
  titledSingle: {
    type: "string",
    oneOf: [
      { const: "value1", title: "First Option" },
      { const: "value2", title: "Second Option" },
      { const: "value3", title: "Third Option" },
    ],
  },
  legacyEnum: {
    type: "string",
    enum: ["opt1", "opt2", "opt3"],
    enumNames: ["Option One", "Option Two", "Option Three"],
  },
  untitledMulti: {
    type: "array",
    items: { type: "string", enum: ["option1", "option2", "option3"] },
  },
  titledMulti: {
    type: "array",
    items: {
      anyOf: [
        { const: "value1", title: "First Choice" },
        { const: "value2", title: "Second Choice" },
        { const: "value3", title: "Third Choice" },
      ],
    },
  },
};

async function sample(server: Server, ctx: ServerContext, prompt: string): Promise<CallToolResult> {
  if (!server.getClientCapabilities()?.sampling)
    return text("the client does not support sampling", true);
  const result = await ctx.mcpReq.send({
    method: "sampling/createMessage",
    params: {
      messages: [{ role: "user", content: { type: "text", text: prompt } }],
      maxTokens: 100,
    },
  });
  const content = result.content as { type: string; text?: string };
  return text(`LLM response: ${content.type === "text" ? content.text : JSON.stringify(content)}`);
}

async function elicit(
  server: Server,
  ctx: ServerContext,
  message: string,
  properties: Record<string, unknown>,
  required: string[],
): Promise<CallToolResult> {
  if (!server.getClientCapabilities()?.elicitation)
    return text("the client does not support elicitation", true);
  const result = await ctx.mcpReq.send({
    method: "elicitation/create",
    params: {
      message,
      requestedSchema: { type: "object", properties, ...(required.length > 0 ? { required } : {}) },
    } as never,
  });
  return text(
    `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`,
  );
}
