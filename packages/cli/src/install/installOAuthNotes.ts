import { shellQuote } from "../output/shellQuote.js";
import type { HostClient } from "./hostClients.js";
import type { ServerEntry } from "./rewriteServers.js";

/** How each client signed in to remote servers before toolledger took them over. */
const CLIENT_SIGN_IN: Record<HostClient["name"], string> = {
  "claude-desktop": "Claude Desktop's sign-in",
  cursor: "Cursor's stored sign-in",
  vscode: "VS Code's sign-in (its accounts and authentication providers)",
  goose: "goose's stored sign-in",
};

/**
 * A4, what `install` changes for a user's OAuth servers, per client: the remote (HTTP or
 * SSE) servers it moves are authorized by toolledger from now on (the client's own sign-in
 * is not reused; one browser step, or `toolledger auth login` now); servers that sign in
 * through mcp-remote keep doing so themselves. Empty when no moved server is remote.
 */
export function installOAuthNotes(
  client: HostClient,
  moved: readonly ServerEntry[],
  serversFile: string,
): string[] {
  const remote: string[] = [];
  const proxied: string[] = [];
  for (const { name, value } of moved) {
    const e = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
    const type = String(e.type ?? "");
    const url = e.url ?? e.serverUrl ?? e.uri;
    if (
      typeof url === "string" ||
      ["http", "sse", "streamable_http", "streamable-http"].includes(type)
    )
      remote.push(name);
    else if (JSON.stringify([e.command, e.cmd, e.args]).includes("mcp-remote")) proxied.push(name);
  }
  const notes: string[] = [];
  if (remote.length > 0) {
    const first = remote[0]!;
    notes.push(
      `  OAuth: ${remote.join(", ")} ${remote.length === 1 ? "is a remote server" : "are remote servers"}; toolledger signs in to ${remote.length === 1 ? "it" : "them"} itself from now on (${CLIENT_SIGN_IN[client.name]} is not reused). Authorize once: \`toolledger auth login ${shellQuote(first)} --config ${shellQuote(serversFile)}\`${remote.length > 1 ? " (and the others)" : ""}, or in the browser window toolledger opens when ${client.label} starts it; tokens go to toolledger's own store (toolledger auth status)`,
    );
  }
  if (proxied.length > 0)
    notes.push(
      `  OAuth: ${proxied.join(", ")} ${proxied.length === 1 ? "signs" : "sign"} in through mcp-remote, which keeps its own tokens (~/.mcp-auth): nothing changes for ${proxied.length === 1 ? "it" : "them"}`,
    );
  return notes;
}
