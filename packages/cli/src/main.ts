#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { run } from "./program/run.js";

// The only file that touches argv, the process, and the terminal.
const version = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;
const controller = new AbortController();
let interrupts = 0;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    interrupts++;
    // A second Ctrl-C leaves at once, in case a server refuses to stop.
    if (interrupts > 1) process.exit(130);
    controller.abort(new Error(`interrupted by ${signal}`));
  });
}
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  // `toolledger export … | head` closes the pipe early: not an error for the user.
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

const code = await run(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  home: homedir(),
  stdout: { write: (s) => void process.stdout.write(s), isTTY: process.stdout.isTTY === true },
  stderr: { write: (s) => void process.stderr.write(s), isTTY: process.stderr.isTTY === true },
  now: () => new Date(),
  stdio: { input: process.stdin, output: process.stdout },
  signal: controller.signal,
  version,
});
process.exitCode = code;
// Child processes and sockets are closed by the commands; leave once stdout has drained.
process.stdout.write("", () => process.exit(code));
