import { CONFIG_OPTION, type CommandSpec, JSON_OPTION } from "../program/commandSpec.js";

export const authSpec: CommandSpec = {
  name: "auth",
  summary:
    "OAuth for remote servers: authorize toolledger (login), show what is stored (status), revoke and forget (logout).",
  description:
    "Remote MCP servers that use OAuth (GitHub, Linear, Notion, Atlassian, Sentry, …) are authorized once per user;\n`serve` then keeps their tokens fresh. `login <server>` opens the authorization page ($BROWSER, else the\nplatform's opener; --no-browser prints it and reads the address your browser ended on) and waits for the\nredirect on a loopback port. `status` lists each server's issuer, scopes, expiry and last refresh, never a\ntoken. `logout <server>` revokes the tokens where the server supports revocation, then forgets them.\nTokens live in $XDG_CONFIG_HOME/toolledger/oauth (else ~/.config/toolledger/oauth), readable by you only.\nA server's `oauth` object in the config (clientId, clientSecret, clientMetadataUrl, scopes, callbackPort,\ngrant, privateKeyFile, signingAlgorithm) is used as `serve` uses it.",
  positionals: [
    { name: "action", required: true, description: "login, status or logout" },
    {
      name: "server",
      required: false,
      description:
        "the server's name in the config (login, logout; status: only this one); logout and status also take its URL",
    },
  ],
  options: [
    CONFIG_OPTION,
    {
      name: "no-browser",
      type: "boolean",
      description:
        "login: print the authorization URL instead of opening a browser, and read the address the browser ended on from stdin (SSH, headless machines)",
    },
    JSON_OPTION,
  ],
  examples: [
    "toolledger auth login linear --config ~/.cursor/mcp.json",
    "toolledger auth login github --config mcp.json --no-browser",
    "toolledger auth status --config mcp.json",
    "toolledger auth logout linear --config ~/.cursor/mcp.json",
  ],
};
