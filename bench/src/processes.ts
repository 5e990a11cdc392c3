import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

export interface Started {
  child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr), for error messages. */
  output: () => string;
  /** Ends the process and everything it started (its own process group). */
  stop: () => Promise<void>;
}

/** Starts a long-running process in its own process group, so `stop` also ends its children. */
export function startProcess(command: string, args: string[]): Started {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return {
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.pid === undefined) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
      }, 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resolves with the first stdout line matching `pattern`, or rejects after `ms`. */
export function waitForLine(
  started: Started,
  pattern: RegExp,
  ms: number,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    const timer = setTimeout(
      () => reject(new Error(`timed out; output: ${started.output().slice(-500)}`)),
      ms,
    );
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      const m = buffer.match(pattern);
      if (m) {
        clearTimeout(timer);
        started.child.stdout?.off("data", onData);
        resolve(m);
      }
    };
    started.child.stdout?.on("data", onData);
    started.child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}; output: ${started.output().slice(-500)}`));
    });
  });
}

/** Retries `fn` until it returns a value or `ms` pass; rethrows the last error. */
export async function until<T>(ms: number, fn: () => Promise<T | undefined>): Promise<T> {
  const end = performance.now() + ms;
  let last: unknown = new Error("timed out");
  while (performance.now() < end) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw last;
}
