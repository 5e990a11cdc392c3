import { CONFIG_OPTION, type CommandSpec, DB_OPTION } from "../program/commandSpec.js";

export const doctorSpec: CommandSpec = {
  name: "doctor",
  summary:
    "Check what makes toolledger fail: Node, the SQLite module, the database, each host's config, each server.",
  description:
    "One line per finding, with what to do: the Node version, better-sqlite3's native module, the session\ndatabase (where, why there, whether it opens and every page reads), each agent host's config (is the\ngateway installed, does the command it runs exist and survive upgrades), and each MCP server (started\nas the gateway would start it: does it list its tools, how long it took). Servers come from --config,\nelse from every host's config (the servers behind the gateway where it is installed). Nothing is\nwritten. --json is for bug reports: paths and versions, never an env value, header or token.\nExit code 0 when nothing failed (warnings allowed), 7 when something did.",
  positionals: [],
  options: [
    DB_OPTION,
    { ...CONFIG_OPTION, description: "check this config's servers instead of every host's" },
    {
      name: "timeout",
      type: "string",
      value: "<ms>",
      description: "how long one server may take to start and list its tools (default 15000)",
    },
    { name: "no-servers", type: "boolean", description: "do not start any server" },
    { name: "json", type: "boolean", description: "print the findings as JSON" },
  ],
  examples: [
    "toolledger doctor",
    "toolledger doctor --config ~/.cursor/mcp.json --timeout 30000",
    "toolledger doctor --json > toolledger-doctor.json",
  ],
};
