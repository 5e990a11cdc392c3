import type { TextSink } from "../program/deps.js";

/** Styling functions; identity functions when colour is off. */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/** Colour only on a terminal, never when NO_COLOR is set to anything non-empty (no-color.org), nor on TERM=dumb. */
export function colorEnabled(
  sink: TextSink,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (!sink.isTTY) return false;
  if ((env.NO_COLOR ?? "") !== "") return false;
  return env.TERM !== "dumb";
}

const sgr = (open: number, close: number) => (text: string) =>
  `\u001b[${open}m${text}\u001b[${close}m`;
const identity = (text: string) => text;

export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    return {
      enabled,
      bold: identity,
      dim: identity,
      red: identity,
      green: identity,
      yellow: identity,
      cyan: identity,
    };
  }
  return {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape codes is the point
const ANSI = /\u001b\[[0-9;]*m/g;

/** Display width of `text` without escape codes (one column per code point). */
export function visibleWidth(text: string): number {
  let n = 0;
  for (const _ of text.replace(ANSI, "")) n++;
  return n;
}
