import {
  CONFIG_OPTION,
  type CommandSpec,
  DB_OPTION,
  DEFERRAL_OPTIONS,
} from "../program/commandSpec.js";

/** The bearer token for `serve --http`, from the environment (kept out of `ps` and shell history). */
export const TOKEN_ENV = "TOOLLEDGER_TOKEN";

export const serveSpec: CommandSpec = {
  name: "serve",
  summary:
    "Run the gateway: one MCP server that aggregates the configured servers, recording the session.",
  description:
    "Over stdio by default (point Claude Desktop, Cursor or goose at `toolledger serve --config …`), or over\nstreamable HTTP on 127.0.0.1 with --http <port> (0 picks a free port; the URL is printed on stdout).\nBrowser requests from origins other than loopback ones are refused (DNS rebinding); binding beyond\nloopback (--host 0.0.0.0) needs a bearer token (--token or $TOOLLEDGER_TOKEN), checked on every request.\nThe registry (servers, tools, list changes) is recorded once per run; each client session is its own\nconversation (its enabled tools, calls and client), so clients never share enabled tools. `toolledger clear\n<conversation>` and `toolledger compact <conversation>` reach a conversation while it is served.\nEvery definition a server lists is pinned: the first listing is trusted unless a check flags it, a later\nchange waits for `toolledger approve` (the model keeps the approved one), and approvals reach a serving\ngateway within a second (`toolledger pins`, `toolledger diff`).\nWith --deferral lookup, a client that opens a new MCP session per request (a one-shot script, the Inspector's\nCLI mode) starts a new conversation each time, so a tool it enabled is deferred again on its next request:\nover stdio, start each run with the same --conversation <id> to keep them; over HTTP, keep one session open,\nor name those tools in --always-load.\nWithout --config, serve reads $TOOLLEDGER_CONFIG, else goose's own config.yaml, and says so at startup.\nMessages go to stderr, never to the MCP stream.",
  positionals: [],
  options: [
    CONFIG_OPTION,
    ...DEFERRAL_OPTIONS,
    {
      name: "http",
      type: "string",
      value: "<port>",
      description: "serve streamable HTTP on 127.0.0.1:<port> instead of stdio",
    },
    {
      name: "host",
      type: "string",
      value: "<address>",
      description:
        "with --http: the address to bind (default 127.0.0.1); anything but loopback needs a token",
    },
    {
      name: "token",
      type: "string",
      value: "<token>",
      description: `with --http: require "Authorization: Bearer <token>" (default: $${TOKEN_ENV}; at least 16 characters)`,
    },
    {
      name: "allow-origin",
      type: "string",
      multiple: true,
      value: "<origin>",
      description:
        "with --http: a browser origin allowed besides loopback ones (repeatable; others get 403)",
    },
    {
      name: "view",
      type: "boolean",
      description:
        "with --http: also serve the live view of this gateway's sessions at /view (the page `toolledger view` writes, updating as events arrive)",
    },
    {
      name: "conversation",
      type: "string",
      value: "<id>",
      description:
        "stdio only: record the client's conversation under this id (an existing conversation is resumed; default: a new id)",
    },
    {
      name: "session",
      type: "string",
      short: "s",
      value: "<id>",
      description: "the first release's name of --conversation",
    },
    {
      name: "name-prefix",
      type: "string",
      value: "<prefix>",
      description:
        "the prefix your MCP client puts in front of every tool name (Claude Code: mcp__<server>__), or its length; served tool names leave room for it within the 64 characters model APIs accept (R14)",
    },
    {
      name: "pinning",
      type: "string",
      multiple: true,
      value: "<policy|server=policy>",
      description:
        "how tool, prompt and resource definitions are pinned (P5): quarantine (default: a changed or flagged definition waits for `toolledger approve`), warn (recorded, served as listed) or off; for one server as <server>=<policy> (repeatable); flags win over `pinning` in the config file",
    },
    {
      name: "protocol-era",
      type: "string",
      value: "<auto|legacy|modern>",
      description:
        "the MCP protocol era to reach each server in (V1): auto (default: probe it once with server/discover, MCP 2026-07-28, falling back to initialize, 2025-11-25; the verdict is recorded and reused), legacy (2025-11-25, no probe) or modern (2026-07-28 only); a server's own protocol_era in the config file wins, the file's toolledger.protocol_era does not",
    },
    {
      name: "record-payloads",
      type: "boolean",
      description:
        "record tool call arguments and results (truncated to 4 KiB, config secrets redacted, credential-looking keys masked); off by default",
    },
    {
      name: "call-durability",
      type: "string",
      value: "<write-ahead|relaxed>",
      description:
        "write-ahead (default): each call's start is stored before the call goes upstream, so the log holds every call that ran, in the order decided; relaxed: starts are written behind with the finishes, in group commits (faster; a crash may lose the record of calls that ran, and a `toolledger clear` from another process may be stored before calls decided ahead of it); default: the config file's `call_durability`",
    },
    {
      name: "max-definition-kb",
      type: "string",
      value: "<KiB>",
      description:
        "largest tool, prompt, resource or template definition served (its JSON; default 1024, at most 8064: a definition must fit one page of a list, and lists are served in pages of at most 8 MiB, which every client reads); a larger one is not served, and is said on stderr and recorded (V3); wins over the config file's toolledger.max_definition_kb",
    },
    {
      name: "max-message-mb",
      type: "string",
      value: "<MiB>",
      description:
        "largest JSON-RPC message read over stdio, from the client and from each server (default 64); a larger request is answered with an error, a larger reply fails its call, and serving goes on",
    },
    DB_OPTION,
  ],
  examples: [
    "toolledger serve --config ~/.config/goose/config.yaml",
    "toolledger serve --config claude_desktop_config.json --deferral lookup --always-load notes__search_notes",
    "toolledger serve --config mcp.json --http 8931",
    "TOOLLEDGER_TOKEN=$(openssl rand -hex 32) toolledger serve --config mcp.json --http 8931 --host 0.0.0.0",
    "toolledger serve --config mcp.json --http 8931 --view",
    "toolledger serve --config mcp.json --pinning warn --pinning github=quarantine",
  ],
};
