import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DoctorFinding } from "./doctorFinding.js";

/**
 * The Node version against `engines.node` of this installation's package.json, or, in a
 * source checkout, of the workspace's: one or more ranges joined by `||`, each `^X.Y.Z` (that
 * line from X.Y.Z), `X.x`, or `>=X.Y.Z`.
 */
export function checkNode(
  version: string = process.versions.node,
  wanted: string | undefined = requiredNode(),
): DoctorFinding {
  const subject = `Node ${version}`;
  if (wanted === undefined)
    return {
      check: "node",
      subject,
      status: "skip",
      message: "no engines.node found to compare with",
    };
  const ranges = parseEngines(wanted);
  if (ranges === undefined)
    return {
      check: "node",
      subject,
      status: "skip",
      message: `cannot read engines.node ${JSON.stringify(wanted)}`,
    };
  if (ranges.some((r) => inRange(version, r)))
    return { check: "node", subject, status: "ok", message: `toolledger supports ${wanted}` };
  const newest = ranges.reduce((a, b) => (compareVersions(a.min, b.min) >= 0 ? a : b));
  const older = ranges.every((r) => compareVersions(version, r.min) < 0);
  return {
    check: "node",
    subject,
    status: "fail",
    message: older
      ? `older than toolledger supports (${wanted})`
      : `not a Node version toolledger supports (${wanted})`,
    fix: `install Node ${newest.caret ? newest.min.split(".")[0] : newest.min} or another version that ${wanted} allows (nodejs.org, your package manager or version manager), then reinstall toolledger with it`,
  };
}

/** One range of engines.node: from `min`, within its major version when `caret`. */
interface EngineRange {
  min: string;
  caret: boolean;
}

function parseEngines(wanted: string): EngineRange[] | undefined {
  const ranges: EngineRange[] = [];
  for (const part of wanted.split("||").map((p) => p.trim())) {
    const caret = /^\^(\d+(?:\.\d+){0,2})$/.exec(part)?.[1];
    const line = /^(\d+)\.x$/.exec(part)?.[1];
    const min = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(part)?.[1];
    if (caret !== undefined) ranges.push({ min: caret, caret: true });
    else if (line !== undefined) ranges.push({ min: line, caret: true });
    else if (min !== undefined) ranges.push({ min, caret: false });
    else return undefined;
  }
  return ranges;
}

function inRange(version: string, range: EngineRange): boolean {
  if (compareVersions(version, range.min) < 0) return false;
  return !range.caret || version.split(".")[0] === range.min.split(".")[0];
}

function requiredNode(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const engines = (
        JSON.parse(readFileSync(manifest, "utf8")) as { engines?: { node?: string } }
      ).engines;
      if (engines?.node !== undefined) return engines.node;
    }
    dir = dirname(dir);
  }
  return undefined;
}

/** Numeric compare of dotted versions; missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map((n) => Number.parseInt(n, 10) || 0);
  const pb = b.split(".").map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
