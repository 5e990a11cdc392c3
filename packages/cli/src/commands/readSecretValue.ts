import { CliError } from "../program/cliError.js";
import type { Deps } from "../program/deps.js";

/**
 * A secret value for a command, never from argv (process lists show it): from the named
 * environment variable, else standard input (a terminal is asked without echo; piped input
 * is read whole, one trailing line break dropped).
 */
export async function readSecretValue(
  deps: Deps,
  fromEnv: string | undefined,
  command: string,
): Promise<string> {
  if (fromEnv !== undefined) {
    const value = deps.env[fromEnv];
    if (value === undefined || value === "") {
      throw new CliError("usage", `the environment variable ${fromEnv} is not set or empty`, {
        hint: `export ${fromEnv}=… first, or pipe the value: printf '%s' "$VALUE" | toolledger ${command}`,
      });
    }
    return value;
  }
  const input = deps.stdio.input as NodeJS.ReadableStream & {
    isTTY?: boolean;
    setRawMode?: (raw: boolean) => void;
  };
  const value = input.isTTY ? await askWithoutEcho(input, deps) : await readAll(input);
  const trimmed = value.replace(/\r?\n$/, "");
  if (trimmed === "") {
    throw new CliError("usage", "no value given on standard input", {
      hint: `pipe it: printf '%s' "$VALUE" | toolledger ${command}, or use --from-env NAME`,
    });
  }
  return trimmed;
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of input)
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  return text;
}

function askWithoutEcho(
  input: NodeJS.ReadableStream & { setRawMode?: (raw: boolean) => void },
  deps: Deps,
): Promise<string> {
  if (!input.setRawMode) return readAll(input);
  const setRawMode = input.setRawMode.bind(input);
  deps.stderr.write("value to scrub (not shown; Enter to finish): ");
  return new Promise((resolve, reject) => {
    let value = "";
    const done = (error?: Error) => {
      input.off("data", onData);
      setRawMode(false);
      input.pause();
      deps.stderr.write("\n");
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of typeof chunk === "string" ? chunk : chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003") return done(new CliError("interrupted", "interrupted"));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else value += ch;
      }
    };
    setRawMode(true);
    input.on("data", onData);
    input.resume();
  });
}
