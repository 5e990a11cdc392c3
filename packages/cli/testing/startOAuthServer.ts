import { spawn } from "node:child_process";
import { join } from "node:path";
import { SERVERS } from "./spawnCli.js";

/** What the test authorization server counted (see servers/internal/authorizationServer.ts). */
export interface OAuthServerStats {
  registrations: number;
  authorizations: {
    scope: string | null;
    resource: string | null;
    challengeMethod: string | null;
  }[];
  codeExchanges: number;
  refreshes: number;
  reusedRefreshTokens: number;
  revocations: number;
  clientCredentials: number;
  /** Every token, code, verifier and client secret it issued or received. */
  secrets: string[];
}

export interface OAuthServer {
  /** Streamable HTTP endpoint. */
  mcp: string;
  /** Legacy SSE endpoint. */
  sse: string;
  issuer: string;
  stats: () => Promise<OAuthServerStats>;
  stop: () => Promise<void>;
}

/** Starts our OAuth-protected MCP server (`oauthProtected`: resource + authorization server on loopback). */
export async function startOAuthServer(flags: string[] = []): Promise<OAuthServer> {
  const child = spawn(process.execPath, [join(SERVERS, "oauthProtected.js"), ...flags], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const [mcp, sse, issuer] = await new Promise<string[]>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(
      () => reject(new Error(`the OAuth test server did not start within 20 s; stderr: ${stderr}`)),
      20_000,
    );
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening (\S+) (\S+) (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve([m[1]!, m[2]!, m[3]!]);
      }
    });
    child.once("exit", (code) =>
      reject(new Error(`the OAuth test server exited with ${code}; stderr: ${stderr}`)),
    );
  });
  return {
    mcp: mcp!,
    sse: sse!,
    issuer: issuer!,
    stats: async () => (await (await fetch(`${issuer}/_stats`)).json()) as OAuthServerStats,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
  };
}
