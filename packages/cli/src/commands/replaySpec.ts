import { type CommandSpec, DB_OPTION } from "../program/commandSpec.js";

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
    {
      name: "json",
      type: "boolean",
      description:
        'print one JSON document: {"source", "steps": [one object per step], "state"} (with --to: the state)',
    },
    {
      name: "jsonl",
      type: "boolean",
      description:
        "print JSON Lines: one object per step, written as it is replayed (long logs, pipes)",
    },
    DB_OPTION,
  ],
  examples: [
    "toolledger replay conv-20261130-162107-5f3a9c1e",
    "toolledger replay conv-20261130-162107-5f3a9c1e --to 12",
    "toolledger replay bug-report.jsonl --jsonl | jq -c 'select(.type == \"EnableToolsResponded\")'",
  ],
};
