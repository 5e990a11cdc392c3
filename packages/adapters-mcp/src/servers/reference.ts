#!/usr/bin/env node
// The conformance upstream toolledger ships (G3): written from what the scenarios of
// @modelcontextprotocol/conformance 0.1.10 (server mode) ask a server to offer, plus a few
// tools the gateway tests use to make the server change its lists and send updates.
// stdio by default; `--http [--port N]` serves streamable HTTP and prints `listening <url>`.
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  EmptyResultSchema,
} from "@modelcontextprotocol/core";
import type { CallToolResult, GetPromptResult } from "@modelcontextprotocol/server";
import { ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import { hostMcpOverHttp } from "../gateway/httpHost.js";
import { PNG, PROMPTS, RESOURCES, TEMPLATES, WAV } from "./internal/conformanceCatalog.js";
import {
  type Extra,
  flag,
  hasFlag,
  objectSchema,
  serveStdio,
  sleep,
  text,
} from "./internal/serve.js";

const noArgs = objectSchema();
const stringArg = (name: string, description: string) =>
  objectSchema({ [name]: { type: "string", description } }, [name]);

const TOOLS = [
  { name: "test_simple_text", description: "Returns a simple text", inputSchema: noArgs },
  { name: "test_image_content", description: "Returns a PNG image", inputSchema: noArgs },
  { name: "test_audio_content", description: "Returns a WAV clip", inputSchema: noArgs },
  {
    name: "test_embedded_resource",
    description: "Returns an embedded resource",
    inputSchema: noArgs,
  },
  {
    name: "test_multiple_content_types",
    description: "Returns text, image and resource",
    inputSchema: noArgs,
  },
  {
    name: "test_tool_with_logging",
    description: "Logs three messages while it runs",
    inputSchema: noArgs,
  },
  {
    name: "test_tool_with_progress",
    description: "Reports progress 0, 50, 100",
    inputSchema: noArgs,
  },
  { name: "test_error_handling", description: "Always fails as a tool error", inputSchema: noArgs },
  {
    name: "test_sampling",
    description: "Asks the client's model",
    inputSchema: stringArg("prompt", "The prompt"),
  },
  {
    name: "test_elicitation",
    description: "Asks the user",
    inputSchema: stringArg("message", "What to ask"),
  },
  {
    name: "test_elicitation_sep1034_defaults",
    description: "Elicits with defaults",
    inputSchema: noArgs,
  },
  {
    name: "test_elicitation_sep1330_enums",
    description: "Elicits with every enum form",
    inputSchema: noArgs,
  },
  {
    name: "test_reconnection",
    description: "Closes its SSE stream mid-call when it can",
    inputSchema: noArgs,
  },
  {
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: {
          type: "object",
          properties: { street: { type: "string" }, city: { type: "string" } },
        },
      },
      properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
      additionalProperties: false,
    },
  },
  // For toolledger's own tests: make the server change its lists and send updates.
  {
    name: "add_prompt",
    description: "Adds a prompt; sends prompts/list_changed",
    inputSchema: stringArg("name", "Prompt name"),
  },
  {
    name: "add_resource",
    description: "Adds a resource; sends resources/list_changed",
    inputSchema: stringArg("uri", "Resource URI"),
  },
  {
    name: "touch_resource",
    description: "Sends resources/updated for a subscribed URI",
    inputSchema: stringArg("uri", "Resource URI"),
  },
  {
    name: "progress_burst",
    description:
      "Sends `count` progress notifications; with `settle`, pings the client before answering, so a client that handles notifications after the response it arrived with still gets them all",
    inputSchema: objectSchema({ count: { type: "number" }, settle: { type: "boolean" } }),
  },
  {
    name: "big_result",
    description: "Returns `bytes` of text",
    inputSchema: objectSchema({ bytes: { type: "number" } }),
  },
];

const extraPrompts: string[] = [];
const extraResources: string[] = [];
const subscriptions = new Set<string>();
const servers = new Set<Server>();

function makeServer(): Server {
  const server = new Server(
    { name: "toolledger-reference", version: "0.1.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
        logging: {},
      },
      instructions: "The toolledger conformance reference server: every feature a scenario needs.",
    },
  );
  server.setRequestHandler("tools/list", () => ({ tools: TOOLS as never[] }));
  server.setRequestHandler("tools/call", (request, ctx) =>
    callTool(
      server,
      request.params.name,
      request.params.arguments ?? {},
      request.params._meta?.progressToken,
      ctx,
    ),
  );
  server.setRequestHandler("prompts/list", () => ({
    prompts: [
      ...PROMPTS,
      ...extraPrompts.map((name) => ({ name, description: `added prompt ${name}` })),
    ],
  }));
  server.setRequestHandler("prompts/get", (request) =>
    getPrompt(request.params.name, request.params.arguments ?? {}),
  );
  server.setRequestHandler("resources/list", () => ({
    resources: [
      ...RESOURCES,
      ...extraResources.map((uri) => ({
        uri,
        name: uri,
        description: `added resource ${uri}`,
        mimeType: "text/plain",
      })),
    ],
  }));
  server.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: TEMPLATES,
  }));
  server.setRequestHandler("resources/read", (request) => readResource(request.params.uri));
  server.setRequestHandler("resources/subscribe", (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler("resources/unsubscribe", (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });
  server.setRequestHandler("logging/setLevel", () => ({}));
  server.setRequestHandler("completion/complete", (request) => {
    const { value } = request.params.argument;
    const candidates = ["test", "testing", "tested", "other"].filter((c) => c.startsWith(value));
    return { completion: { values: candidates, total: candidates.length, hasMore: false } };
  });
  servers.add(server);
  server.onclose = () => servers.delete(server);
  return server;
}

async function callTool(
  server: Server,
  name: string,
  args: Record<string, unknown>,
  progressToken: string | number | undefined,
  extra: Extra,
): Promise<CallToolResult> {
  const log = (data: string) =>
    extra.mcpReq.notify({
      method: "notifications/message",
      params: { level: "info", logger: "reference", data },
    });
  const progress = (value: number, total: number) =>
    progressToken === undefined
      ? Promise.resolve()
      : extra.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken, progress: value, total },
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
      await progress(0, 100);
      await sleep(50);
      await progress(50, 100);
      await sleep(50);
      await progress(100, 100);
      return text("Progress tool ran");
    case "test_error_handling":
      return text("This tool intentionally returns an error for testing", true);
    case "test_sampling": {
      if (!server.getClientCapabilities()?.sampling)
        return text("the client does not support sampling", true);
      const result = await extra.mcpReq.send(
        {
          method: "sampling/createMessage",
          params: {
            messages: [
              { role: "user", content: { type: "text", text: String(args.prompt ?? "") } },
            ],
            maxTokens: 100,
          },
        },
        CreateMessageResultSchema,
      );
      const content = result.content as { type: string; text?: string };
      return text(
        `LLM response: ${content.type === "text" ? content.text : JSON.stringify(content)}`,
      );
    }
    case "test_elicitation":
      return elicit(
        server,
        extra,
        String(args.message ?? ""),
        {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        ["username", "email"],
        "User response",
      );
    case "test_elicitation_sep1034_defaults":
      return elicit(
        server,
        extra,
        "Please review your profile",
        {
          name: { type: "string", default: "John Doe" },
          age: { type: "integer", default: 30 },
          score: { type: "number", default: 95.5 },
          status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
          verified: { type: "boolean", default: true },
        },
        [],
        "Elicitation completed",
      );
    case "test_elicitation_sep1330_enums":
      return elicit(
        server,
        extra,
        "Pick some options",
        {
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
        },
        [],
        "Elicitation completed",
      );
    case "test_reconnection":
      // SEP-1699: a transport with resumability can close the stream; the client comes back for the result.
      (extra as { closeSSEStream?: () => void }).closeSSEStream?.();
      await sleep(100);
      return text("Reconnection test completed");
    case "json_schema_2020_12_tool":
      return text(`hello ${String(args.name ?? "")}`);
    case "add_prompt":
      extraPrompts.push(String(args.name));
      await Promise.all([...servers].map((s) => s.sendPromptListChanged()));
      return text(`added prompt ${String(args.name)}`);
    case "add_resource":
      extraResources.push(String(args.uri));
      await Promise.all([...servers].map((s) => s.sendResourceListChanged()));
      return text(`added resource ${String(args.uri)}`);
    case "touch_resource": {
      const uri = String(args.uri);
      if (!subscriptions.has(uri)) return text(`${uri} has no subscriber`);
      await Promise.all([...servers].map((s) => s.sendResourceUpdated({ uri })));
      return text(`updated ${uri}`);
    }
    case "progress_burst": {
      const count = Number(args.count ?? 0);
      for (let i = 1; i <= count; i++) await progress(i, count);
      // The client answers the ping after the reports it read before it (bench 9b/9d).
      if (args.settle === true) await extra.mcpReq.send({ method: "ping" }, EmptyResultSchema);
      return text(`sent ${count} progress notifications`);
    }
    case "big_result":
      return text("x".repeat(Number(args.bytes ?? 0)));
    default:
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
  }
}

async function elicit(
  server: Server,
  extra: Extra,
  message: string,
  properties: Record<string, unknown>,
  required: string[],
  label: string,
): Promise<CallToolResult> {
  if (!server.getClientCapabilities()?.elicitation)
    return text("the client does not support elicitation", true);
  const result = await extra.mcpReq.send(
    {
      method: "elicitation/create",
      params: {
        message,
        requestedSchema: {
          type: "object",
          properties,
          ...(required.length > 0 ? { required } : {}),
        },
      } as never,
    },
    ElicitResultSchema,
  );
  return text(`${label}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
}

function getPrompt(name: string, args: Record<string, string>): GetPromptResult {
  const user = (content: GetPromptResult["messages"][number]["content"]) => ({
    role: "user" as const,
    content,
  });
  switch (name) {
    case "test_simple_prompt":
      return { messages: [user({ type: "text", text: "This is a simple prompt for testing." })] };
    case "test_prompt_with_arguments":
      return {
        messages: [
          user({
            type: "text",
            text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`,
          }),
        ],
      };
    case "test_prompt_with_embedded_resource":
      return {
        messages: [
          user({
            type: "resource",
            resource: {
              uri: String(args.resourceUri),
              mimeType: "text/plain",
              text: "Embedded resource content for testing.",
            },
          }),
          user({ type: "text", text: "Please process the embedded resource above." }),
        ],
      };
    case "test_prompt_with_image":
      return {
        messages: [
          user({ type: "image", data: PNG, mimeType: "image/png" }),
          user({ type: "text", text: "Please analyze the image above." }),
        ],
      };
    default:
      if (extraPrompts.includes(name))
        return { messages: [user({ type: "text", text: `prompt ${name}` })] };
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} not found`);
  }
}

function readResource(uri: string) {
  if (
    uri === "test://static-text" ||
    uri === "test://watched-resource" ||
    extraResources.includes(uri)
  )
    return {
      contents: [
        { uri, mimeType: "text/plain", text: "This is the content of the static text resource." },
      ],
    };
  if (uri === "test://static-binary")
    return { contents: [{ uri, mimeType: "image/png", blob: PNG }] };
  const match = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (match) {
    const id = match[1]!;
    return {
      contents: [
        {
          uri,
          mimeType: "application/json",
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    };
  }
  throw new ProtocolError(-32002, `Resource not found: ${uri}`, { uri });
}

if (hasFlag("http")) {
  const host = await hostMcpOverHttp(makeServer, { port: Number(flag("port", "0")) });
  process.stdout.write(`listening ${host.url.href}\n`);
  const stop = () => {
    host.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`reference server: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
} else {
  await serveStdio(makeServer());
}
