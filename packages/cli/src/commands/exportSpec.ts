import { type CommandSpec, DB_OPTION } from "../program/commandSpec.js";

export const exportSpec: CommandSpec = {
  name: "export",
  summary:
    "Write a session as JSONL (one event per line), to attach to a bug report and replay elsewhere.",
  description:
    'Each line is {"session", "position", "eventId", "recordedAt", "metadata", "event"}. Events carry no secrets\n(env and header values never enter the log). `toolledger import` and `toolledger replay` read it back.',
  positionals: [
    { name: "session", required: true, description: "the session id (see `toolledger sessions`)" },
  ],
  options: [
    {
      name: "output",
      type: "string",
      short: "o",
      value: "<file>",
      description: "write to this file instead of stdout",
    },
    DB_OPTION,
  ],
  examples: [
    "toolledger export conv-20261130-162107-5f3a9c1e > session.jsonl",
    "toolledger export conv-20261130-162107-5f3a9c1e -o session.jsonl",
  ],
};
