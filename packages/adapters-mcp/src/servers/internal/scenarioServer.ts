// One SDK server with everything the conformance scenarios (0.2.0-alpha.12, server mode) ask
// for: tools (scenarioTools.ts), prompts, resources, completion, logging. The same builder
// serves both eras: a 2026-07-28 request gets a fresh one, a 2025-11-25 session keeps one.
// Tools are an McpServer's (the SDK checks a 2026-07-28 call's Mcp-Param-* headers against
// their x-mcp-header annotations only for those); the rest are the low-level server's handlers.
import type {
  GetPromptResult,
  JsonSchemaType,
  ReadResourceResult,
} from "@modelcontextprotocol/server";
import {
  fromJsonSchema,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from "@modelcontextprotocol/server";
import { PNG, PROMPTS, RESOURCES, TEMPLATES } from "./conformanceCatalog.js";
import { callScenarioTool, type ListChanges, SCENARIO_TOOLS } from "./scenarioTools.js";

/** A server for one 2026-07-28 request or one 2025-11-25 session. */
export function scenarioServer(changes: ListChanges): McpServer {
  const mcp = new McpServer(
    { name: "toolledger-dual-era", version: "0.1.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
        // 2025-11-25 only (logging/setLevel); a 2026-07-28 request names its own logLevel.
        logging: {},
      },
      instructions: "toolledger's dual-era conformance upstream: what the scenarios call.",
    },
  );
  const server = mcp.server;
  for (const tool of SCENARIO_TOOLS)
    mcp.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: fromJsonSchema<Record<string, unknown>>(tool.inputSchema as JsonSchemaType),
      },
      (args, ctx) => callScenarioTool(server, tool.name, args, ctx, changes),
    );
  server.setRequestHandler("prompts/list", () => ({ prompts: PROMPTS }));
  server.setRequestHandler("prompts/get", (request) =>
    getPrompt(request.params.name, request.params.arguments ?? {}),
  );
  server.setRequestHandler("resources/list", () => ({ resources: RESOURCES }));
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: TEMPLATES }));
  server.setRequestHandler("resources/read", (request) => readResource(request.params.uri));
  // 2025-11-25 only: 2026-07-28 has subscriptions/listen instead (the SDK's, see scenarios.ts).
  server.setRequestHandler("resources/subscribe", () => ({}));
  server.setRequestHandler("resources/unsubscribe", () => ({}));
  server.setRequestHandler("logging/setLevel", () => ({}));
  server.setRequestHandler("completion/complete", (request) => {
    const { value } = request.params.argument;
    const values = ["test", "testing", "tested", "other"].filter((c) => c.startsWith(value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return mcp;
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
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} not found`);
  }
}

function readResource(uri: string): ReadResourceResult {
  if (uri === "test://static-text" || uri === "test://watched-resource")
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
  // SEP-2164: -32602 with the uri in data (2025 servers used -32002).
  throw new ResourceNotFoundError(uri);
}
