import { CONFIG_OPTION, type CommandSpec, DB_OPTION, DEFERRAL_OPTIONS } from "../commandSpec.js";

export const serveSpec: CommandSpec = {
  name: "serve",
  summary:
    "Run the gateway: one MCP server that aggregates the configured servers, recording the session.",
  description:
    "Over stdio by default (point Claude Desktop, Cursor or goose at `toolledger serve --config …`), or over\nstreamable HTTP on 127.0.0.1 with --http <port> (0 picks a free port; the URL is printed on stdout).\nEvery event of the session is stored in the database; messages go to stderr, never to the MCP stream.",
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
      name: "session",
      type: "string",
      short: "s",
      value: "<id>",
      description:
        "record under this session id (an existing session is resumed; default: a new id)",
    },
    DB_OPTION,
  ],
  examples: [
    "toolledger serve --config ~/.config/goose/config.yaml",
    "toolledger serve --config claude_desktop_config.json --deferral lookup --always-load notes__search_notes",
    "toolledger serve --config mcp.json --http 8931",
  ],
};
