import { existsSync, realpathSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { shellQuote } from "./shellQuote.js";

/**
 * How to run this CLI in a command printed for the user: `toolledger` when that name on the
 * PATH is this very CLI (its main.js, or the checkout's `bin/toolledger` launcher), else
 * `node <absolute path of main.js>`, so that every printed command runs as printed.
 */
export function cliInvocation(
  env: Readonly<Record<string, string | undefined>>,
  main: string,
): string {
  const selves = new Set([
    realpath(main),
    realpath(join(dirname(main), "..", "bin", "toolledger")),
  ]);
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "toolledger");
    // The first `toolledger` on the PATH is the one a shell runs.
    if (existsSync(candidate))
      return selves.has(realpath(candidate)) ? "toolledger" : `node ${shellQuote(main)}`;
  }
  return `node ${shellQuote(main)}`;
}

function realpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
