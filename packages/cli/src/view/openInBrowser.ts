import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import type { Deps } from "../deps.js";

/**
 * Opens `file` with `$BROWSER` when set (the convention xdg-open and Python's webbrowser
 * follow), else the platform's opener. Resolves to a reason when nothing could be started.
 */
export function openInBrowser(file: string, deps: Pick<Deps, "env">): Promise<string | undefined> {
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
  return new Promise((done) => {
    const child = spawn(command, args, { detached: true, stdio: "ignore" });
    child.once("error", (error) => done(`${command}: ${error.message}`));
    child.once("spawn", () => {
      child.unref();
      done(undefined);
    });
  });
}
