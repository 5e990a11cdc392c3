import {
  CONFIG_OPTION,
  type CommandSpec,
  DB_OPTION,
  DEFERRAL_OPTIONS,
  JSON_OPTION,
} from "../program/commandSpec.js";

export const explainSpec: CommandSpec = {
  name: "explain",
  summary:
    "Why a tool is visible, hidden, app-only, deferred, enabled, renamed or lost in a collision.",
  description:
    "Reads a recorded session (--session: an id or a JSONL file; default: the latest session in the database),\nor connects to the servers of a config file (--config) and explains the live registry.\nEach reason names the rule that decides it (docs/rules.md) and the positions of the events\nthat decided it.",
  positionals: [
    {
      name: "tool",
      required: true,
      description:
        "a public name such as notes__search (mangled forms like notes.search are recovered)",
    },
  ],
  options: [
    {
      name: "session",
      type: "string",
      short: "s",
      value: "<id|file.jsonl>",
      description: "the session to read (default: the latest one)",
    },
    CONFIG_OPTION,
    ...DEFERRAL_OPTIONS,
    DB_OPTION,
    JSON_OPTION,
  ],
  examples: [
    "toolledger explain notes__search_notes",
    "toolledger explain calculator__calculate --session conv-20261130-162107-5f3a9c1e",
    "toolledger explain github.create_issue --config ~/.config/goose/config.yaml --deferral lookup",
  ],
};
