import {
  CONFIG_OPTION,
  type CommandSpec,
  DEFERRAL_OPTIONS,
  JSON_OPTION,
} from "../program/commandSpec.js";

export const toolsSpec: CommandSpec = {
  name: "tools",
  summary: "Connect to the configured servers and print the aggregated registry.",
  description:
    "Starts every enabled server of the config file, fetches their tools and prints them by public name\n(<extension key>__<tool>). With --deferral lookup the CLASS column says which tools the model gets in full\n(eager) and which by name only (deferred). Servers that fail to start are reported with their command and\nstderr; the command then exits with 6 after printing what the others offer.",
  positionals: [],
  options: [
    CONFIG_OPTION,
    {
      name: "extension",
      type: "string",
      short: "e",
      value: "<name>",
      description: "only this extension's tools (name or key)",
    },
    {
      name: "exclude",
      type: "string",
      short: "x",
      value: "<name>",
      description: "leave out this extension's tools",
    },
    {
      name: "include-hidden",
      type: "boolean",
      description: "also list hidden extensions' tools (R8)",
    },
    ...DEFERRAL_OPTIONS,
    JSON_OPTION,
  ],
  examples: [
    "toolledger tools --config claude_desktop_config.json",
    "toolledger tools --config ~/.config/goose/config.yaml --deferral lookup --always-load github__create_issue",
    "toolledger tools -c mcp.json --extension notes --json",
  ],
};
