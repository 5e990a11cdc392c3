import { type CommandSpec, DB_OPTION, DEFERRAL_OPTIONS } from "../program/commandSpec.js";

const CLIENT_POSITIONAL = {
  name: "client",
  required: true,
  description: "claude-desktop, cursor, vscode or goose",
} as const;

export const FILE_OPTION = {
  name: "file",
  type: "string",
  value: "<path>",
  description:
    "the client's config file (default: its user-level file, e.g. ~/.cursor/mcp.json; a project's .cursor/mcp.json or .vscode/mcp.json works too)",
} as const;

const COMMAND_OPTION = {
  name: "command",
  type: "string",
  value: "<path>",
  description:
    "the executable the host starts (default: the installed toolledger's stable path, else npx -y toolledger@<major>)",
} as const;

const CONFIRM_OPTIONS = [
  { name: "yes", type: "boolean", short: "y", description: "apply without asking" },
  { name: "dry-run", type: "boolean", description: "show the diff, write nothing" },
] as const;

export const installSpec: CommandSpec = {
  name: "install",
  summary:
    "Put toolledger into an agent host: its MCP servers move behind one `toolledger serve` entry.",
  description:
    "Reads the client's own config, moves every server toolledger can run into a servers file of its own\n(in the client's format), and leaves one entry that starts the gateway with absolute paths and --db and\n--deferral in its args (hosts start servers with a small environment). The entry runs a command that\nsurvives upgrades and moves: the installed toolledger's stable path (npm's link), else\n`npx -y toolledger@<major>`, never a file inside a source checkout; install says which and why. Servers the client runs itself\n(goose builtins), disabled ones and VS Code servers that need an ${input:…} stay where they are.\nShows the diff first and asks (or --yes); keeps the original as <file>.toolledger-backup, which\n`toolledger uninstall` restores byte for byte. Restart the client afterwards.",
  positionals: [CLIENT_POSITIONAL],
  options: [FILE_OPTION, DB_OPTION, ...DEFERRAL_OPTIONS, COMMAND_OPTION, ...CONFIRM_OPTIONS],
  examples: [
    "toolledger install cursor --deferral lookup",
    "toolledger install claude-desktop --dry-run",
    "toolledger install vscode --file .vscode/mcp.json --yes",
    "toolledger install goose --db ~/toolledger/goose.db --yes",
  ],
};

export const uninstallSpec: CommandSpec = {
  name: "uninstall",
  summary: "Undo `toolledger install`: the client's config as it was, byte for byte.",
  description:
    "When the client's config and the servers file are as install left them, the backup is restored exactly.\nWhen either changed since (a server added in the client, or in the servers file), the gateway's entry is\nreplaced by the servers of the servers file instead, keeping those changes, and the config as it was before\ninstall is kept as <file>.toolledger-backup-<time> (so a later install is not refused). Shows the diff first.",
  positionals: [CLIENT_POSITIONAL],
  options: [FILE_OPTION, ...CONFIRM_OPTIONS],
  examples: [
    "toolledger uninstall cursor",
    "toolledger uninstall vscode --file .vscode/mcp.json --yes",
  ],
};
