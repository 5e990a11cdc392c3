import { CliError } from "../program/cliError.js";
import { blankJsonComments } from "./blankJsonComments.js";

/**
 * Strict JSON, except comments, which VS Code's and Cursor's files may hold: they are blanked
 * out (keeping every offset, so positions stay true). Returns the text to parse.
 */
export function checkJsonSyntax(file: string, text: string): string {
  const source = blankJsonComments(text);
  try {
    JSON.parse(source);
    return source;
  } catch (error) {
    const message = (error as Error).message;
    const at = /position (\d+)/.exec(message);
    let line = 1;
    let col = 1;
    if (at) {
      const offset = Number(at[1]);
      const before = source.slice(0, offset).split("\n");
      line = before.length;
      col = (before.at(-1)?.length ?? 0) + 1;
    }
    throw new CliError(
      "badInput",
      `${file}:${line}:${col}: invalid JSON: ${message.replace(/ in JSON at position \d+.*$/, "")}`,
      { hint: "fix the JSON syntax (trailing commas are not allowed in .json files)" },
    );
  }
}

export function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}
