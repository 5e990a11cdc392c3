import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { asAnotherUser } from "@toolledger/core/testing";

/** The built package, as another process imports it. */
export const DIST_INDEX = pathToFileURL(
  join(dirname(fileURLToPath(import.meta.url)), "..", "..", "dist", "index.js"),
).href;

/**
 * Makes `dir` and its files read-only for the process `runAsReader` starts. Root ignores
 * permissions, so under root that process runs as `nobody` (see `asAnotherUser`); the folder
 * stays listable and its files readable for it.
 */
export function makeReadOnly(dir: string): void {
  for (const name of readdirSync(dir)) chmodSync(join(dir, name), 0o444);
  chmodSync(dir, 0o555);
}

/** Undoes `makeReadOnly`, so the test can remove the folder. */
export function makeWritable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const name of readdirSync(dir)) chmodSync(join(dir, name), 0o644);
}

/** Runs an ES module source in a new Node process that cannot write to a read-only folder; its stdout parsed as JSON. */
export function runAsReader(source: string): unknown {
  const [command, args] = asAnotherUser(process.execPath, ["--input-type=module", "-e", source]);
  const r = spawnSync(command, args, { encoding: "utf8", timeout: 30_000 });
  if (r.status !== 0) throw new Error(`reader exited with ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
