import { spawn } from "node:child_process";
import { join } from "node:path";
import { SERVERS } from "./spawnCli.js";

export interface TestServer {
  url: string;
  port: string;
  stop: () => Promise<void>;
}

/**
 * Starts a shipped HTTP test server (`http`: streamable HTTP, `sse`: legacy SSE; V1's
 * `modernOnly` and `dualEra` with `--http`; `scenarios`, the conformance upstream: SDK v2, both eras on one endpoint) on a free port, with `args`.
 */
export async function startTestServer(
  name: "http" | "sse" | "modernOnly" | "dualEra" | "scenarios",
  ...args: string[]
): Promise<TestServer> {
  const child = spawn(process.execPath, [join(SERVERS, `${name}.js`), "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      // Still starting is still running: end it, or it outlives the run.
      child.kill("SIGKILL");
      reject(new Error(`${name} test server did not start within 10 s; stderr: ${stderr}`));
    }, 10_000);
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      const match = /listening (\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) =>
      reject(new Error(`${name} test server exited with ${code}; stderr: ${stderr}`)),
    );
  });
  return {
    url,
    port: new URL(url).port,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
  };
}
