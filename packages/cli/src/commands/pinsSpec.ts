import {
  type CommandSpec,
  DB_OPTION,
  JSON_OPTION,
  type OptionSpec,
} from "../program/commandSpec.js";

const KIND_OPTION: OptionSpec = {
  name: "kind",
  type: "string",
  value: "<kind>",
  description:
    "tool, prompt, resource, resource_template or instructions, when two kinds share a name",
};

export const pinsSpec: CommandSpec = {
  name: "pins",
  summary: "The pinned definitions of each server: approved, changed, pending or rejected (P1–P6).",
  description:
    "Reads the pins ledger of the database: every tool, prompt, resource, template and instructions a\nserver listed, with the digest approved (the first listing, unless a check flagged it, or a person's\napproval) and what awaits a decision: a changed definition, a new one (renames included), or one a\ncheck flagged at first sight (hidden characters, cross-server shadowing, encoded commands,\ninstructions aimed at the model). Under quarantine a changed definition is served as it was\napproved and calls to it are refused; a new or flagged one is not served.",
  positionals: [{ name: "server", required: false, description: "only this server's definitions" }],
  options: [
    {
      name: "awaiting",
      type: "boolean",
      description: "only what awaits a decision (changed, pending, rejected)",
    },
    DB_OPTION,
    JSON_OPTION,
  ],
  examples: ["toolledger pins", "toolledger pins github --awaiting", "toolledger pins --json"],
};

export const diffSpec: CommandSpec = {
  name: "diff",
  summary: "A pinned definition: the approved one and the one awaiting approval, side by side.",
  description:
    "Shows what changed (the JSON paths), the two definitions side by side with hidden characters made\nvisible, and every finding of the checks with where it is and what it decodes to. Name the tool by\nits public name (<server>__<tool>), or give the server and the name (a prompt, a resource URI,\n`instructions`).",
  positionals: [
    { name: "tool", required: true, description: "<server>__<tool>, or <server>" },
    { name: "name", required: false, description: "with <server>: the definition's name" },
  ],
  options: [
    KIND_OPTION,
    {
      name: "unified",
      type: "boolean",
      description: "a unified diff instead of two columns",
    },
    DB_OPTION,
    JSON_OPTION,
  ],
  examples: [
    "toolledger diff github__create_issue",
    "toolledger diff everything instructions",
    "toolledger diff everything simple-prompt --kind prompt",
  ],
};

const REVIEW_OPTIONS: readonly OptionSpec[] = [
  KIND_OPTION,
  {
    name: "by",
    type: "string",
    value: "<who>",
    description: "who decides, as recorded (default: <user>@<machine>)",
  },
  DB_OPTION,
  JSON_OPTION,
];

export const approveSpec: CommandSpec = {
  name: "approve",
  summary: "Approve what awaits approval of a server (all of it, or the named definitions) (P6).",
  description:
    "Records the approval, by digest, in the pins ledger; a gateway serving the server folds it within a\nsecond, and its clients get the approved definitions (tools/list_changed). A definition that changed\nagain since `toolledger pins` or `diff` showed it is refused: review it again.",
  positionals: [
    { name: "server", required: true, description: "the server (its name or key)" },
    {
      name: "tool",
      required: false,
      multiple: true,
      description: "the definitions to approve (default: everything of the server that awaits)",
    },
  ],
  options: REVIEW_OPTIONS,
  examples: ["toolledger approve github", "toolledger approve github create_issue search_code"],
};

export const rejectSpec: CommandSpec = {
  name: "reject",
  summary: "Reject what awaits approval of a server: it stays out of the model's view (P6).",
  description:
    "Records the rejection, by digest, in the pins ledger; a serving gateway folds it within a second. A\nrejected definition is not served and its calls are refused until the server lists an approved\ndefinition again or someone approves this one.",
  positionals: approveSpec.positionals,
  options: [
    ...REVIEW_OPTIONS,
    { name: "reason", type: "string", value: "<text>", description: "why, as recorded" },
  ],
  examples: [
    "toolledger reject github",
    "toolledger reject github create_issue --reason 'asks for ~/.ssh'",
  ],
};
