import { type CommandSpec, DB_OPTION, JSON_OPTION } from "../program/commandSpec.js";

export const sessionsSpec: CommandSpec = {
  name: "sessions",
  summary:
    "List the conversations in the database: client, host, start and end, calls, enabled tools, events.",
  description:
    "Each client session of `toolledger serve` is a conversation (conv-…) over the registry stream of the\nhost run that served it (host-…); sessions recorded by the first release (one stream each) are listed too.\nAn open conversation shows `open` as its end.",
  positionals: [],
  options: [
    {
      name: "all",
      type: "boolean",
      description: "also list the hosts' registry streams (host-…)",
    },
    DB_OPTION,
    JSON_OPTION,
  ],
  examples: ["toolledger sessions", "toolledger sessions --all --db ./sessions.db --json"],
};
