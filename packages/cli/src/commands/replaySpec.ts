import { type CommandSpec, DB_OPTION, JSON_OPTION } from "../commandSpec.js";

export const replaySpec: CommandSpec = {
  name: "replay",
  summary: "Step through a session log: each event's position, type and what it changed.",
  description:
    "Reads a session from the database, or a JSONL file written by `toolledger export` (or one bare event per line).\nChanges shown: extensions added or removed, tools added, removed, renamed or collided, version bumps,\nstale fetches ignored, enabled set changes, failed enables and anomalies.",
  positionals: [
    {
      name: "session|file.jsonl",
      required: true,
      description: "a session id, or a path to a JSONL log",
    },
  ],
  options: [
    {
      name: "to",
      type: "string",
      value: "<position>",
      description: "print the state right after this position instead of the steps",
    },
    {
      name: "include-hidden",
      type: "boolean",
      description: "with --to: also list hidden extensions and their tools (R8)",
    },
    JSON_OPTION,
    DB_OPTION,
  ],
  examples: [
    "toolledger replay 20261129-2345-a1b2c3",
    "toolledger replay 20261129-2345-a1b2c3 --to 12",
    "toolledger replay bug-report.jsonl --json",
  ],
};
