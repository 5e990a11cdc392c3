import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import type { Deps } from "../program/deps.js";

/** What became of `--open`: the opener that took the URL, or why none did. */
export type BrowserOutcome =
  | { opened: true; url: string; opener: string; how: "exited 0" | "still running" }
  | { opened: false; url: string; opener: string; why: string };

/**
 * How long to wait for the opener to report. xdg-open, open and start hand the URL on and
 * exit (0 when a browser took it, 3 or 4 when none could); a `$BROWSER` that is the browser
 * itself keeps running, which means it opened.
 */
const REPORT_MS = 2000;

/** xdg-open's documented exit codes. */
const XDG_OPEN_EXIT: Record<number, string> = {
  1: "error in the command line",
  2: "the file does not exist",
  3: "no program to open it was found",
  4: "the program that should open it failed",
};

/**
 * Opens `file` with `$BROWSER` when set (the convention xdg-open and Python's webbrowser
 * follow), else the platform's opener, and reports whether it took the URL.
 */
export function openInBrowser(file: string, deps: Pick<Deps, "env">): Promise<BrowserOutcome> {
  const url = pathToFileURL(file).href;
  const browser = deps.env.BROWSER;
  const [command, args] =
    browser !== undefined && browser !== ""
      ? [browser, [url]]
      : process.platform === "darwin"
        ? ["open", [url]]
        : process.platform === "win32"
          ? ["cmd", ["/c", "start", '""', url]]
          : ["xdg-open", [url]];
  const opener = browser !== undefined && browser !== "" ? `$BROWSER (${browser})` : command;
  return new Promise((done) => {
    const child = spawn(command, args, { detached: true, stdio: "ignore" });
    let timer: NodeJS.Timeout | undefined;
    child.once("error", (error) => done({ opened: false, url, opener, why: error.message }));
    child.once("spawn", () => {
      timer = setTimeout(() => {
        child.unref();
        done({ opened: true, url, opener, how: "still running" });
      }, REPORT_MS);
      child.unref();
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) done({ opened: true, url, opener, how: "exited 0" });
      else {
        const meaning = command === "xdg-open" && code !== null ? XDG_OPEN_EXIT[code] : undefined;
        done({
          opened: false,
          url,
          opener,
          why:
            code !== null
              ? `it exited with code ${code}${meaning ? `: ${meaning}` : ""}`
              : `it was stopped by ${signal}`,
        });
      }
    });
  });
}
