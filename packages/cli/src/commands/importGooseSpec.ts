import { type CommandSpec, DB_OPTION, JSON_OPTION } from "../program/commandSpec.js";

export const importGooseSpec: CommandSpec = {
  name: "import goose",
  summary:
    "Import goose's own sessions (its sessions.db, `goose session export` JSON, legacy JSONL) as conversations.",
  description:
    "Reads goose's database read-only, safely while goose runs (one WAL snapshot; nothing is written or locked\nfor long): $GOOSE_PATH_ROOT/data/sessions/sessions.db, else $XDG_DATA_HOME/goose/sessions/sessions.db, else\n~/.local/share/goose/sessions/sessions.db (or --goose-db). Each session becomes conversation goose-<id>\nwith its registry goose-<id>-registry; every event says whether it is exact, inferred or synthetic (goose\nstores no tool lists). Importing again adds only what is new. Sub-agent sessions come with their parent.",
  positionals: [
    {
      name: "file",
      required: false,
      multiple: true,
      description:
        "`goose session export --format json` files or legacy <id>.jsonl files (instead of the database)",
    },
  ],
  options: [
    {
      name: "goose-db",
      type: "string",
      value: "<file>",
      description: "goose's sessions.db (default: where goose keeps it)",
    },
    {
      name: "session",
      type: "string",
      value: "<id>",
      multiple: true,
      description: "import this goose session and its sub-agents (repeatable)",
    },
    { name: "all", type: "boolean", description: "import every session of the database" },
    {
      name: "since",
      type: "string",
      value: "<when>",
      description: "sessions updated since an ISO date/time, or a duration back (7d, 12h)",
    },
    {
      name: "request-log",
      type: "string",
      value: "<file>",
      multiple: true,
      description: "goose's llm_request.<n>.jsonl: take tool lists from what goose sent the model",
    },
    {
      name: "enable-tool",
      type: "string",
      value: "<name>",
      multiple: true,
      description:
        "another tool name that is a deferred-loading request (default: extensionmanager__load_tools, enable_tools)",
    },
    {
      name: "prefix",
      type: "string",
      value: "<p>",
      description: "stream id prefix (default: goose-)",
    },
    DB_OPTION,
    JSON_OPTION,
  ],
  examples: [
    "toolledger import goose --session 20261130_3",
    "toolledger import goose --since 7d",
    "toolledger import goose --all --goose-db ~/backup/sessions.db --request-log ~/.local/state/goose/logs/llm_request.0.jsonl",
    "toolledger import goose exported-session.json",
  ],
};
