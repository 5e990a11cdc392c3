import type { ChildProcess } from "node:child_process";

const running = new Set<ChildProcess>();
let hooked = false;

/**
 * Stops a server's process when this process exits, however it exits (`process.exit` while
 * servers are still closing, a second Ctrl-C): a server that outlives its closed stdin
 * (server-everything takes seconds, and stays for good once its pipes are gone) would
 * otherwise keep running with nobody to talk to. Only a SIGKILL of this process escapes it.
 */
export function endWithThisProcess(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  running.add(child);
  child.once("exit", () => running.delete(child));
  if (hooked) return;
  hooked = true;
  process.once("exit", () => {
    // Synchronous, as `exit` handlers must be: a signal is all that can be sent now.
    for (const c of running) c.kill("SIGTERM");
  });
}
