import { type CommandSpec, DB_OPTION, JSON_OPTION } from "../program/commandSpec.js";

export const viewSpec: CommandSpec = {
  name: "view",
  summary:
    "Write a session as one self-contained HTML page: timeline, state at any position, what deferral saved.",
  description:
    "The page needs no network and no server: events, styles and script are inside it (it opens from file:// on an\nair-gapped machine). Timeline of every event with filters by kind and extension, each linked to its rule; a scrubber\nthat shows the model view and diagnostics at any position (the same fold as `replay --to`); and the tokens of the\ntool definitions the model received against the same registry with deferral off (o200k_base), charted over the session.\nWritten next to the database as <session>.html (next to the file for a JSONL log; here when that folder is\nread-only) unless --output is given. --open says whether a browser took the page.",
  positionals: [
    {
      name: "session|file.jsonl",
      required: true,
      description: "a session id, or a path to a JSONL log",
    },
  ],
  options: [
    {
      name: "output",
      aliases: ["out"],
      type: "string",
      short: "o",
      value: "<file.html>",
      description: "write the page here (default: <session>.html next to the database)",
    },
    {
      name: "open",
      type: "boolean",
      description:
        "open the page in the default browser ($BROWSER, else open / xdg-open / start) and say whether it did",
    },
    {
      ...JSON_OPTION,
      description: "print the page's path and facts (and --open's outcome) as JSON",
    },
    DB_OPTION,
  ],
  examples: [
    "toolledger view conv-20261130-170742-e716c42a --open",
    "toolledger view conv-20261130-170742-e716c42a -o session.html",
    "toolledger view bug-report.jsonl",
  ],
};
