import type { Deps } from "../program/deps.js";
import { colorEnabled, createStyle, type Style } from "./style.js";

/** Data to stdout, messages to stderr, each with its own colour decision. */
export interface Output {
  out: Style;
  err: Style;
  /** Data (tables, JSON) to stdout. */
  data(text: string): void;
  /** One JSON value as one line on stdout. */
  json(value: unknown): void;
  /** A message to stderr. */
  note(text: string): void;
}

export function createOutput(deps: Deps): Output {
  const out = createStyle(colorEnabled(deps.stdout, deps.env));
  const err = createStyle(colorEnabled(deps.stderr, deps.env));
  return {
    out,
    err,
    data: (text) => deps.stdout.write(text.endsWith("\n") || text === "" ? text : `${text}\n`),
    json: (value) => deps.stdout.write(`${JSON.stringify(value)}\n`),
    note: (text) => deps.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
  };
}

/** A short local time for tables (`2026-11-29 23:45:32Z`); JSON keeps ISO-8601. */
export function shortTime(iso: string | undefined): string {
  if (iso === undefined) return "";
  return iso.replace("T", " ").replace(/\.\d+Z$/, "Z");
}
