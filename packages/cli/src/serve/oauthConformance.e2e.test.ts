// A1–A4 + G3: the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.10)
// in client mode, with toolledger as the client: for each client scenario the suite starts its
// test server(s) and runs our host driver (`testing/conformanceHost.mjs`), which puts the
// server in an MCP config, runs the built `toolledger serve` on it over stdio with the MCP
// SDK's own client, and calls the server's tools as a host would. OAuth is toolledger's alone;
// its browser step goes to a headless $BROWSER (`testing/headlessBrowser.mjs`).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSuiteScript } from "../../testing/conformanceSuite.js";

const CONFORMANCE_VERSION = "0.1.10";
const here = dirname(fileURLToPath(import.meta.url));
const HOST = join(here, "..", "..", "testing", "conformanceHost.mjs");
const require = createRequire(join(here, "..", "..", "..", "adapters-mcp", "package.json"));
const suite = require.resolve("@modelcontextprotocol/conformance/dist/index.js");
const suiteVersion = (
  JSON.parse(readFileSync(join(dirname(suite), "..", "package.json"), "utf8")) as {
    version: string;
  }
).version;

interface Check {
  id: string;
  name?: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
  description?: string;
}

interface ScenarioRun {
  checks: Check[];
  /** The host driver's exit code as the suite saw it (it prints it on a failure). */
  clientFailed: boolean;
  stdout: string;
  stderr: string;
  log: string;
}

function run(args: string[], timeoutMs: number): Promise<{ code: number | null; log: string }> {
  return runSuiteScript(process.execPath, suite, args, timeoutMs);
}

/** The client scenarios `conformance list` names (the suite decides what "every" means). */
async function clientScenarios(): Promise<string[]> {
  const { log } = await run(["list"], 30_000);
  const section = log.split(/Client scenarios[^\n]*\n/)[1] ?? "";
  return [...section.matchAll(/^\s+-\s+(\S+)/gm)].map((m) => m[1]!);
}

async function runScenario(name: string, out: string): Promise<ScenarioRun> {
  const { log } = await run(
    [
      "client",
      "--command",
      `${process.execPath} ${HOST}`,
      "--scenario",
      name,
      "--timeout",
      "60000",
      "-o",
      out,
    ],
    120_000,
  );
  const slug = name.replaceAll("/", "-");
  const dirs = readdirSync(out, { recursive: true, encoding: "utf8" })
    .filter((p) => p.endsWith("checks.json"))
    .map((p) => join(out, dirname(p)))
    .filter((d) => d.replaceAll("/", "-").includes(slug));
  const dir = dirs.at(-1);
  if (!dir) throw new Error(`scenario ${name} left no results:\n${log}`);
  return {
    checks: JSON.parse(readFileSync(join(dir, "checks.json"), "utf8")) as Check[],
    clientFailed: /CLIENT (EXITED WITH ERROR|TIMED OUT)/.test(log),
    stdout: readFileSync(join(dir, "stdout.txt"), "utf8"),
    stderr: readFileSync(join(dir, "stderr.txt"), "utf8"),
    log,
  };
}

/** The suite's own verdict: no failed and no warned check, and the client finished cleanly. */
function verdict(r: ScenarioRun): string[] {
  const problems = r.checks
    .filter((c) => c.status === "FAILURE" || c.status === "WARNING")
    .map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description ?? ""}`);
  if (r.clientFailed) problems.push(`the host driver failed:\n${r.stderr.slice(-2000)}`);
  return problems;
}

describe(`A1–A4/G3 conformance suite ${CONFORMANCE_VERSION}, client mode: toolledger serve as the client`, () => {
  const out = mkdtempSync(join(tmpdir(), "toolledger-conformance-client-"));
  const runs = new Map<string, ScenarioRun>();
  let scenarios: string[] = [];

  beforeAll(async () => {
    scenarios = await clientScenarios();
    // One at a time: sse-retry measures the client's reconnection delay.
    for (const name of scenarios) runs.set(name, await runScenario(name, out));
  }, 1_800_000);

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("runs the pinned suite version and every one of its client scenarios", () => {
    expect(suiteVersion).toBe(CONFORMANCE_VERSION);
    expect(scenarios).toEqual(
      expect.arrayContaining([
        "initialize",
        "tools_call",
        "elicitation-sep1034-client-defaults",
        "sse-retry",
        "auth/client-credentials-jwt",
        "auth/client-credentials-basic",
      ]),
    );
    expect(scenarios.filter((s) => s.startsWith("auth/")).length).toBeGreaterThanOrEqual(17);
    expect([...runs.keys()]).toEqual(scenarios);
  });

  it("every scenario passes: no failed or warned check, the host finished cleanly", () => {
    const report = [...runs].flatMap(([name, r]) => verdict(r).map((p) => `${name}: ${p}`));
    expect(report).toEqual([]);
  });

  it("the host really used the servers: each scenario's tool was called through the gateway", () => {
    for (const name of ["tools_call", "auth/metadata-default", "auth/scope-step-up"]) {
      const report = JSON.parse(runs.get(name)!.stdout.trim().split("\n").at(-1)!) as {
        calls: { name: string; isError: boolean }[];
      };
      expect(report.calls.length, name).toBeGreaterThan(0);
      expect(
        report.calls.every((c) => !c.isError),
        `${name}: ${JSON.stringify(report)}`,
      ).toBe(true);
    }
    // Step-up: the second authorization asked for both scopes, and the call went through after it.
    const stepUp = runs.get("auth/scope-step-up")!.checks;
    expect(stepUp.find((c) => c.id === "scope-step-up-escalation")?.status).toBe("SUCCESS");
  });

  it("A3: no token, code, client secret or key reached serve's stderr", () => {
    for (const [name, r] of runs) {
      for (const secret of [
        /test-token-\d+/,
        /cc-token-\d+/,
        /test-auth-code/,
        /test-client-secret/,
        /conformance-test-secret/,
        /test-secret-\d+/,
        /BEGIN PRIVATE KEY/,
      ])
        expect(r.stderr, name).not.toMatch(secret);
    }
  });
});
