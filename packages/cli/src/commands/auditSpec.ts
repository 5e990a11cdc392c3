import { type CommandSpec, DB_OPTION, JSON_OPTION } from "../program/commandSpec.js";

export const auditSpec: CommandSpec = {
  name: "audit",
  summary:
    "The enable history: every enable_tools request, its outcome, and whether its tools are still enabled.",
  description:
    "Outcomes: enabled, failed (with the recorded error), never_answered. A request's names stay enabled until a\n/clear or a compaction that dropped them: STILL ENABLED says yes, or which one ended them and at which\nposition (no: cleared at 18). Responses that paired with no request are listed separately: they enabled\nnothing (D6).",
  positionals: [],
  options: [
    {
      name: "session",
      type: "string",
      short: "s",
      value: "<id>",
      description: "only this session (default: all sessions)",
    },
    {
      name: "calls",
      type: "boolean",
      description:
        "audit tool calls instead (C4): who called what, with which outcome (ok, tool_error, refused with its reason, timeout, cancelled, unavailable) and how long it took",
    },
    {
      name: "pins",
      type: "boolean",
      description:
        "audit pinning decisions instead (P2–P6): every definition pinned at first use, changed, new or flagged, restored, approved or rejected, and who decided",
    },
    {
      name: "outcome",
      type: "string",
      value: "<outcome>",
      description: "with --calls: only calls with this outcome (e.g. refused)",
    },
    {
      name: "tool",
      type: "string",
      short: "t",
      value: "<name>",
      description: "only requests that name this exact public name",
    },
    {
      name: "since",
      type: "string",
      value: "<time>",
      description:
        "only requests at or after this time: ISO-8601 (2026-11-29T12:00Z) or an age (30m, 12h, 7d)",
    },
    {
      name: "until",
      type: "string",
      value: "<time>",
      description: "only requests before this time (same forms as --since)",
    },
    JSON_OPTION,
    { name: "csv", type: "boolean", description: "print CSV (RFC 4180), one row per request" },
    DB_OPTION,
  ],
  examples: [
    "toolledger audit",
    "toolledger audit --session conv-20261130-162107-5f3a9c1e --tool notes__search_notes",
    "toolledger audit --since 24h --csv > enables.csv",
    "toolledger audit --calls --outcome refused",
    "toolledger audit --pins --tool github__create_issue",
  ],
};
