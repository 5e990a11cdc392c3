import { type CommandSpec, DB_OPTION, JSON_OPTION } from "../program/commandSpec.js";

export const pruneSpec: CommandSpec = {
  name: "prune",
  summary:
    "Remove whole old conversations (and the registry streams no conversation observes) and give the space back.",
  description:
    "Never single events: a stream goes whole, so every stream left replays as before. Give conversation ids, or\n--before <time> for every closed conversation, first-release session and unobserved registry stream whose\nlast event is older. A registry stream goes only when no conversation left observes it. The removal is\nrecorded in the database's maintenance log (`toolledger scrub --list`); the file is rebuilt so the space is\nreturned. Needs the database to itself: stop `toolledger serve` first. SQLite only.",
  positionals: [
    {
      name: "conversation",
      required: false,
      multiple: true,
      description: "conversation ids (conv-…) to remove",
    },
  ],
  options: [
    {
      name: "before",
      type: "string",
      value: "<time>",
      description: "remove what ended before this time: ISO-8601 (2026-11-01) or an age (30d, 12h)",
    },
    {
      name: "include-open",
      type: "boolean",
      description:
        "with --before: also conversations still marked open (their host stopped without closing them)",
    },
    { name: "dry-run", type: "boolean", description: "list what would go; change nothing" },
    DB_OPTION,
    JSON_OPTION,
  ],
  examples: [
    "toolledger prune --before 30d --dry-run",
    "toolledger prune --before 2026-11-01",
    "toolledger prune conv-20261130-101500-1a2b3c4d",
  ],
};
