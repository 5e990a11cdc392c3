import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DoctorFinding } from "./doctorFinding.js";

/**
 * The Node version against `engines.node` (`>=20.19`) of this installation's package.json, or,
 * in a source checkout, of the workspace's.
 */
export function checkNode(version: string = process.versions.node): DoctorFinding {
  const wanted = requiredNode();
  const subject = `Node ${version}`;
  if (wanted === undefined)
    return {
      check: "node",
      subject,
      status: "skip",
      message: "no engines.node found to compare with",
    };
  const minimum = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(wanted.trim())?.[1];
  if (minimum === undefined)
    return {
      check: "node",
      subject,
      status: "skip",
      message: `cannot read engines.node ${JSON.stringify(wanted)}`,
    };
  if (compareVersions(version, minimum) >= 0)
    return { check: "node", subject, status: "ok", message: `toolledger needs ${wanted}` };
  return {
    check: "node",
    subject,
    status: "fail",
    message: `older than toolledger needs (${wanted})`,
    fix: `install Node ${minimum} or newer (nodejs.org, your package manager or version manager), then reinstall toolledger with it`,
  };
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
