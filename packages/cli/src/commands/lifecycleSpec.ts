import { type CommandSpec, DB_OPTION, JSON_OPTION } from "../program/commandSpec.js";

export const clearSpec: CommandSpec = {
  name: "clear",
  summary: "The user's /clear for a conversation: its enabled tools are deferred again (D8).",
  description:
    "Appends `Cleared` to the conversation, also while `toolledger serve` serves it: the serving process\nfolds it within a second and sends `tools/list_changed` to that client only. The registry is untouched.",
  positionals: [
    { name: "conversation", required: true, description: "a conversation id (conv-…)" },
  ],
  options: [DB_OPTION, JSON_OPTION],
  examples: ["toolledger clear conv-20261130-101500-1a2b3c4d"],
};

export const compactSpec: CommandSpec = {
  name: "compact",
  summary: "Record that a conversation was compacted (D7): later replays start from here.",
  description:
    "Appends `Compacted`, carrying the enabled set and pending requests, to the conversation, also while\n`toolledger serve` serves it. Compaction never loses an enabled tool.",
  positionals: [
    { name: "conversation", required: true, description: "a conversation id (conv-…)" },
  ],
  options: [DB_OPTION, JSON_OPTION],
  examples: ["toolledger compact conv-20261130-101500-1a2b3c4d"],
};
