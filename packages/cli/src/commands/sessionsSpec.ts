import { type CommandSpec, DB_OPTION, JSON_OPTION } from "../commandSpec.js";

export const sessionsSpec: CommandSpec = {
  name: "sessions",
  summary: "List the sessions in the database with their event counts and times.",
  positionals: [],
  options: [DB_OPTION, JSON_OPTION],
  examples: ["toolledger sessions", "toolledger sessions --db ./sessions.db --json"],
};
