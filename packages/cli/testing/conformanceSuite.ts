// The official MCP conformance suite 0.2.x (`@modelcontextprotocol/conformance`, this
// package's devDependency from the catalog `conformance-next`), run on Node 22 from the npm
// registry (node22.ts: the suite uses fs.globSync), while toolledger runs on the tests' Node.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { node22 } from "./node22.js";

export const CONFORMANCE_NEXT_VERSION = "0.2.0-alpha.12";
/** The spec revisions the suite has frozen requirement sets for (`--requirements`). */
export type Revision = "2025-11-25" | "2026-07-28";

export interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
  description?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "package.json"));
export const SUITE = require.resolve("@modelcontextprotocol/conformance/dist/index.js");
const PACKAGE = join(dirname(SUITE), "..");

export const suiteVersion = (): string =>
  (JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")) as { version: string }).version;

interface RequirementFile {
  server: string[];
  client: string[];
  not_scored: { scenario: string; leg: "server" | "client"; reason: string }[];
}

/** What the suite runs for `revision` in one leg: the scored scenarios, then the unscored ones. */
export function requirementSet(
  revision: Revision,
  leg: "server" | "client",
): { scored: string[]; unscored: string[] } {
  const file = parse(
    readFileSync(join(PACKAGE, "requirements", `${revision}.yaml`), "utf8"),
  ) as RequirementFile;
  return {
    scored: file[leg],
    unscored: file.not_scored.filter((n) => n.leg === leg).map((n) => n.scenario),
  };
}

/** Runs the suite's CLI on Node 22 to completion (or kills it after `timeoutMs`). */
export async function runConformance(
  args: readonly string[],
  timeoutMs: number,
): Promise<{ code: number | null; log: string }> {
  return runSuiteScript(await node22(), SUITE, args, timeoutMs);
}

/**
 * Runs a conformance suite's CLI (`script`, any release) with `node` to completion, its
 * stdout and stderr in one log (or kills it after `timeoutMs`).
 */
export function runSuiteScript(
  node: string,
  script: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<{ code: number | null; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [script, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir() },
    });
    let log = "";
    child.stdout.on("data", (c: Buffer) => {
      log += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      log += c.toString();
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`conformance ${args.join(" ")} did not finish in ${timeoutMs} ms:\n${log}`));
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, log });
    });
  });
}

/** One scenario's outcome: its checks, or why it left none (it threw before reporting). */
export type ScenarioOutcome = { checks: Check[] } | { crashed: string };

/**
 * Runs every server scenario `revision` requires (scored and unscored) against `url`, at that
 * revision's wire; the outcome of each scenario the requirement set names, by name.
 */
export async function runServerRequirements(
  url: string,
  revision: Revision,
): Promise<Map<string, ScenarioOutcome>> {
  const out = mkdtempSync(join(tmpdir(), "toolledger-conformance-"));
  try {
    const { log } = await runConformance(
      ["server", "--url", url, "--requirements", revision, "-o", out],
      600_000,
    );
    const dirs = readdirSync(out);
    const { scored, unscored } = requirementSet(revision, "server");
    const outcomes = new Map<string, ScenarioOutcome>();
    for (const name of [...scored, ...unscored]) {
      const dir = dirs.find((d) => new RegExp(`^server-${name}-\\d{4}-\\d{2}-\\d{2}T`).test(d));
      const checks = dir === undefined ? undefined : join(out, dir, "checks.json");
      const crash = new RegExp(`Failed to run scenario ${name}: (.*)`).exec(log)?.[1];
      outcomes.set(
        name,
        checks !== undefined && existsSync(checks)
          ? { checks: JSON.parse(readFileSync(checks, "utf8")) as Check[] }
          : { crashed: crash ?? `no results (the suite's log:\n${log.slice(-2000)})` },
      );
    }
    return outcomes;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** What is wrong with a scenario's outcome: its failed and warned checks (empty: it passed). */
export function problems(outcome: ScenarioOutcome): string[] {
  if ("crashed" in outcome) return [`the scenario did not finish: ${outcome.crashed}`];
  return outcome.checks
    .filter((c) => c.status === "FAILURE" || c.status === "WARNING")
    .map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description ?? ""}`);
}

/** The scenarios of `outcomes` that did not pass, sorted. */
export function notPassing(outcomes: Map<string, ScenarioOutcome>): string[] {
  return [...outcomes]
    .filter(([, outcome]) => problems(outcome).length > 0)
    .map(([name]) => name)
    .sort();
}

/** A client scenario's run: the suite's checks and whether the client under test failed. */
export interface ClientRun {
  checks: Check[];
  /** The client's exit as the suite saw it (it prints a failed or timed-out client). */
  clientFailed: boolean;
  stdout: string;
  stderr: string;
  log: string;
}

/**
 * Runs one client scenario at the wire of `specVersion` with `command` as the client (the suite
 * appends its test server's URL), results under `out`.
 */
export async function runClientScenario(
  command: string,
  name: string,
  specVersion: Revision,
  out: string,
): Promise<ClientRun> {
  const { log } = await runConformance(
    [
      "client",
      "--command",
      command,
      "--scenario",
      name,
      "--spec-version",
      specVersion,
      "--timeout",
      "60000",
      "-o",
      out,
    ],
    180_000,
  );
  const slug = name.replaceAll("/", "-");
  const dir = readdirSync(out, { recursive: true, encoding: "utf8" })
    .filter((p) => p.endsWith("checks.json"))
    .map((p) => join(out, dirname(p)))
    .filter((d) => d.replaceAll("/", "-").includes(slug))
    .at(-1);
  if (!dir) throw new Error(`scenario ${name} left no results:\n${log}`);
  const read = (file: string) =>
    existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8") : "";
  return {
    checks: JSON.parse(read("checks.json")) as Check[],
    clientFailed: /CLIENT (EXITED WITH ERROR|TIMED OUT)/.test(log),
    stdout: read("stdout.txt"),
    stderr: read("stderr.txt"),
    log,
  };
}

/** The suite's own verdict on a client run: no failed or warned check, the client exited cleanly. */
export function clientProblems(run: ClientRun): string[] {
  const out = run.checks
    .filter((c) => c.status === "FAILURE" || c.status === "WARNING")
    .map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description ?? ""}`);
  if (run.clientFailed) out.push(`the client failed:\n${run.stderr.slice(-1500)}`);
  return out;
}
