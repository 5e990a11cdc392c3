#!/usr/bin/env node
// The floor of any out-of-process stdio hop (benchmark 9d): bytes both ways between the
// client and one server, nothing parsed, nothing rewritten; Node's stream pipes, with their
// backpressure.
// Usage: node bytePipe.js <server script> [args…]
import { spawn } from "node:child_process";

const server = spawn(process.execPath, process.argv.slice(2), {
  stdio: ["pipe", "pipe", "inherit"],
});
process.stdin.pipe(server.stdin);
server.stdout.pipe(process.stdout);
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
// Stopped (the SDK client's close escalates to SIGTERM): the server goes with it.
process.on("SIGTERM", () => server.kill("SIGTERM"));
