import { describe, expect, test } from "vitest";
import { findHostClient } from "./hostClients.js";
import { installOAuthNotes } from "./installOAuthNotes.js";

describe("A4 install says, per client, what changes for OAuth servers", () => {
  test("remote servers are toolledger's to sign in to; mcp-remote ones keep their own tokens; stdio ones say nothing", () => {
    const moved = [
      { name: "linear", value: { url: "https://mcp.linear.app/mcp" } },
      { name: "notion", value: { type: "sse", url: "https://mcp.notion.com/sse" } },
      {
        name: "atlassian",
        value: { command: "npx", args: ["-y", "mcp-remote", "https://mcp.atlassian.com/v1/sse"] },
      },
      { name: "files", value: { command: "node", args: ["files.js"] } },
    ];
    const cursor = installOAuthNotes(
      findHostClient("cursor")!,
      moved,
      "/p/.cursor/toolledger/servers.json",
    );
    expect(cursor).toEqual([
      expect.stringContaining(
        "OAuth: linear, notion are remote servers; toolledger signs in to them itself from now on (Cursor's stored sign-in is not reused)",
      ),
      expect.stringContaining(
        "OAuth: atlassian signs in through mcp-remote, which keeps its own tokens (~/.mcp-auth): nothing changes for it",
      ),
    ]);
    expect(cursor[0]).toContain(
      "`toolledger auth login linear --config /p/.cursor/toolledger/servers.json` (and the others)",
    );
    const goose = installOAuthNotes(
      findHostClient("goose")!,
      [
        {
          name: "gh",
          value: { type: "streamable_http", uri: "https://api.githubcopilot.com/mcp/" },
        },
      ],
      "/c/config.yaml",
    );
    expect(goose[0]).toContain("goose's stored sign-in is not reused");
    const vscode = installOAuthNotes(
      findHostClient("vscode")!,
      [{ name: "gh", value: { type: "http", url: "https://x/mcp" } }],
      "/v/mcp.json",
    );
    expect(vscode[0]).toContain("VS Code's sign-in");
    expect(installOAuthNotes(findHostClient("claude")!, [moved[3]!], "/c/servers.json")).toEqual(
      [],
    );
  });
});
