// G3: the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.10, server
// mode, every scenario of `--suite all`) against the reference server this package ships,
// directly and through the gateway with that server as its only upstream, unprefixed.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openStandaloneConversation,
  type StandaloneConversation,
} from "../conversation/standaloneConversation.js";
import { type RunningHttpServer, shipped, startHttpServer } from "../testing/fixtures.js";
import type { HttpGateway } from "./gatewayOptions.js";
import { serveGatewayHttp } from "./serveGatewayHttp.js";

export const CONFORMANCE_VERSION = "0.1.10";

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

const require = createRequire(import.meta.url);
const suiteDir = dirname(require.resolve("@modelcontextprotocol/conformance/dist/index.js"));
const suiteVersion = (
  JSON.parse(readFileSync(join(suiteDir, "..", "package.json"), "utf8")) as { version: string }
).version;

/** Runs every server scenario against `url`; the checks of each scenario, by scenario name. */
async function runSuite(url: string): Promise<Map<string, Check[]>> {
  const out = mkdtempSync(join(tmpdir(), "toolledger-conformance-"));
  try {
    const child = spawn(
      process.execPath,
      [join(suiteDir, "index.js"), "server", "--url", url, "--suite", "all", "-o", out],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let log = "";
    child.stdout.on("data", (c: Buffer) => {
      log += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      log += c.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    const results = new Map<string, Check[]>();
    for (const dir of readdirSync(out)) {
      const name = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(dir)?.[1];
      if (!name) continue;
      results.set(name, JSON.parse(readFileSync(join(out, dir, "checks.json"), "utf8")) as Check[]);
    }
    if (results.size === 0)
      throw new Error(`the conformance suite ran no scenario (exit ${code}):\n${log}`);
    return results;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const passes = (checks: Check[]) => !checks.some((c) => c.status === "FAILURE");
const successes = (checks: Check[]) =>
  checks
    .filter((c) => c.status === "SUCCESS")
    .map((c) => c.id)
    .sort();
const failures = (checks: Check[]) =>
  checks.filter((c) => c.status === "FAILURE").map((c) => `${c.id}: ${c.errorMessage ?? ""}`);

describe(`G3 conformance suite ${CONFORMANCE_VERSION}, server mode`, () => {
  let upstream: RunningHttpServer;
  let session: StandaloneConversation;
  let gateway: HttpGateway;
  let direct: Map<string, Check[]>;
  let through: Map<string, Check[]>;

  beforeAll(async () => {
    upstream = await startHttpServer("reference", ["--http", "--port", "0"]);
    session = await openStandaloneConversation();
    await session.addExtension(shipped("reference", "reference", [], { exposeUnprefixed: true }));
    gateway = await serveGatewayHttp(session, { port: 0 });
    direct = await runSuite(upstream.url);
    through = await runSuite(gateway.url.href);
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await session?.close();
    await upstream?.stop();
  });

  it("runs the pinned suite version", () => {
    expect(suiteVersion).toBe(CONFORMANCE_VERSION);
  });

  it("the shipped reference server passes every scenario directly", () => {
    expect(direct.size).toBeGreaterThanOrEqual(31);
    const failed = [...direct].filter(([, checks]) => !passes(checks));
    expect(failed.map(([name, checks]) => `${name}: ${failures(checks).join("; ")}`)).toEqual([]);
  });

  it("every scenario that passes directly passes through the gateway, losing no successful check", () => {
    const report: string[] = [];
    for (const [name, checks] of direct) {
      if (!passes(checks)) continue;
      const gw = through.get(name);
      if (!gw) report.push(`${name}: not run through the gateway`);
      else if (!passes(gw)) report.push(`${name}: ${failures(gw).join("; ")}`);
      else {
        // A check the suite itself marks not applicable (INFO: the gateway answered a request
        // with application/json where the SDK streams SSE; both are allowed) is not lost.
        const lost = successes(checks).filter(
          (id) => !gw.some((c) => c.id === id && (c.status === "SUCCESS" || c.status === "INFO")),
        );
        if (lost.length > 0) report.push(`${name}: lost successful checks ${lost.join(", ")}`);
      }
    }
    expect(report).toEqual([]);
  });
});
