import { type CommandSpec, DB_OPTION, JSON_OPTION } from "../program/commandSpec.js";

export const demoSpec: CommandSpec = {
  name: "demo",
  summary:
    "Run a scripted session through the gateway against two real example MCP servers, then replay and audit it.",
  description:
    "Starts the example servers (notes, calculator) as processes, serves their aggregate through the gateway over\nHTTP on 127.0.0.1 with deferral in lookup mode, and drives it as an MCP client would: list, a refused call to a\ndeferred tool, a successful and a failed enable_tools, calls through to both servers, a compaction and a /clear.\nThe session is stored as a new session in the database (default location, or --db), then replayed and audited.",
  positionals: [],
  options: [DB_OPTION, JSON_OPTION],
  examples: ["toolledger demo", "toolledger demo --db ./demo.db"],
};
