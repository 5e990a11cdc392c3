// Raw MCP requests over HTTP for tests of an endpoint's checks (Host, Origin, bearer token).

/** The JSON body of an `initialize` request from a client named `client`. */
export function initializeBody(client: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: client, version: "1" },
    },
  });
}

/** The headers a streamable-HTTP MCP client sends with a POST. */
export const MCP_POST_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** POSTs `initialize` (from `client`) to `url` with the MCP headers plus `headers`. */
export function postInitialize(
  url: URL,
  headers: Record<string, string>,
  client: string,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { ...MCP_POST_HEADERS, ...headers },
    body: initializeBody(client),
  });
}
