import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** How the authorization URL reached the user. */
export type BrowserOutcome = "browser" | "printed";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A1, the browser step: opens `url` with `$BROWSER` when it is set (the convention of
 * xdg-open, git and Python's webbrowser: a `:`-separated list of commands, `%s` standing for
 * the URL, else the URL appended), else the platform's opener (`open`, `xdg-open`, `start`).
 * Nothing is waited for; when no command can be started the caller prints the URL.
 */
export async function openBrowser(url: string, env: Env = process.env): Promise<BrowserOutcome> {
  for (const argv of browserCommands(url, env)) {
    if (await started(argv, env)) return "browser";
  }
  return "printed";
}

/** The commands tried, in order (exported for tests). */
export function browserCommands(url: string, env: Env): string[][] {
  const out: string[][] = [];
  const browser = env.BROWSER?.trim();
  if (browser) {
    for (const entry of browser.split(process.platform === "win32" ? ";" : ":")) {
      const words = splitWords(entry.trim());
      if (words.length === 0) continue;
      const hasPlaceholder = words.some((w) => w.includes("%s"));
      out.push(hasPlaceholder ? words.map((w) => w.replaceAll("%s", url)) : [...words, url]);
    }
    return out;
  }
  if (process.platform === "darwin") out.push(["open", url]);
  else if (process.platform === "win32") out.push(["cmd", "/c", "start", '""', url]);
  else out.push(["xdg-open", url]);
  return out;
}

/** Starts the command detached; true once it spawned (a missing program is false). */
function started(argv: string[], env: Env): Promise<boolean> {
  const [command, ...args] = argv;
  if (!command || !onPath(command, env)) return Promise.resolve(false);
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, args, {
        detached: true,
        stdio: "ignore",
        env: env as NodeJS.ProcessEnv,
        windowsHide: true,
      });
    } catch {
      resolve(false);
      return;
    }
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}

function onPath(command: string, env: Env): boolean {
  if (command.includes("/") || command.includes("\\")) return executable(command);
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && executable(join(dir, command))) return true;
  }
  return process.platform === "win32";
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Splits a command line on spaces, keeping quoted words whole. */
function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const m of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}
