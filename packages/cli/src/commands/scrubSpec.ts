import { type CommandSpec, DB_OPTION, JSON_OPTION } from "../program/commandSpec.js";

export const scrubSpec: CommandSpec = {
  name: "scrub",
  summary: "Remove a secret that reached the database anyway from every event, and from the file.",
  description:
    "For a log written by an older release, or holding a secret no config named. The value is read from\nstandard input (or --from-env NAME), never from the command line: process lists show arguments.\nEvery event holding it (raw, JSON-escaped, URL-encoded, base64, hex, split across lines; and the\ncredentials inside `Bearer …` / `Basic …` values) is rewritten with [redacted], in one transaction\nwith the append-only trigger lifted and restored; a maintenance record keeps a salted fingerprint\nof the value and the counts, never the value. Then the WAL is truncated and the file vacuumed, and\nboth are read back: the value is in neither, and `PRAGMA integrity_check` says ok. Stop any\n`toolledger serve` using the file first.",
  positionals: [],
  options: [
    {
      name: "from-env",
      type: "string",
      value: "<NAME>",
      description: "read the value from this environment variable instead of standard input",
    },
    {
      name: "dry-run",
      type: "boolean",
      description: "count the events that hold the value; change nothing",
    },
    {
      name: "list",
      type: "boolean",
      description: "print the database's maintenance records (earlier scrubs) and exit",
    },
    DB_OPTION,
    JSON_OPTION,
  ],
  examples: [
    "printf '%s' \"$LEAKED_TOKEN\" | toolledger scrub --db ~/.local/share/toolledger/sessions.db",
    "toolledger scrub --from-env LEAKED_TOKEN --dry-run",
    "toolledger scrub --list --db ./sessions.db",
  ],
};
