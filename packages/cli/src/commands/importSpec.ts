import { type CommandSpec, DB_OPTION, JSON_OPTION } from "../program/commandSpec.js";

export const importSpec: CommandSpec = {
  name: "import",
  summary: "Store a JSONL session log (from `toolledger export`, or bare events) as a new session.",
  description:
    "Every line is validated before anything is written: a damaged line names its line number and field,\nand the database is left unchanged. The session keeps the id the file carries unless --session is given.",
  positionals: [
    {
      name: "file.jsonl",
      required: true,
      description: "the log to import (`-` reads standard input)",
    },
  ],
  options: [
    {
      name: "session",
      type: "string",
      value: "<id>",
      description: "store under this session id (default: the file's, else a new one)",
    },
    DB_OPTION,
    JSON_OPTION,
  ],
  examples: [
    "toolledger import session.jsonl",
    "toolledger export conv-20261130-162107-5f3a9c1e | toolledger import - --db ./copy.db",
    "toolledger import bug-report.jsonl --session bug-1234 --db ./triage.db",
    "toolledger import goose --session 20261130_3   # goose's own sessions: see `toolledger import goose --help`",
  ],
};
