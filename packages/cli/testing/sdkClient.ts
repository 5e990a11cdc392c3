import type { Tool } from "@modelcontextprotocol/client";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** A downstream client of `toolledger serve --http`: the MCP SDK's own Client, nothing of ours. */
export interface SdkClient {
  client: Client;
  tools(): Promise<Tool[]>;
  /** notifications/tools/list_changed received so far. */
  listChanged(): number;
  /** Calls a tool; the text of its content and whether it is an error. */
  call(name: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

export async function connectSdkClient(url: string, name = "pins-e2e"): Promise<SdkClient> {
  const client = new Client({ name, version: "1.0.0" });
  let changes = 0;
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    changes++;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    client,
    tools: async () => (await client.listTools()).tools,
    listChanged: () => changes,
    call: async (tool, args = {}) => {
      const result = await client.callTool({ name: tool, arguments: args });
      const content = (result.content ?? []) as { type: string; text?: string }[];
      return {
        text: content.map((c) => c.text ?? "").join("\n"),
        isError: result.isError === true,
      };
    },
    close: () => client.close(),
  };
}
