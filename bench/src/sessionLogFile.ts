import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type SessionLogOptions, sessionLog } from "./sessionLog.js";
import { type WrittenLog, writeJsonl } from "./writeJsonl.js";

/** Git-ignored folder for generated data (`bench/results.tmp/`). */
export const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "results.tmp");

/** Bumped when the generator's output changes, so a cached log is made again. */
const GENERATOR_VERSION = 1;

/**
 * The session log for `options` as a JSONL file, made once and reused by later runs (it is
 * deterministic); `written` tells whether this call wrote it.
 */
export async function sessionLogFile(
  name: string,
  options: SessionLogOptions,
): Promise<WrittenLog & { written: boolean; ms: number }> {
  mkdirSync(DATA_DIR, { recursive: true });
  const path = join(DATA_DIR, `${name}.jsonl`);
  const metaPath = `${path}.meta.json`;
  const key = JSON.stringify({ GENERATOR_VERSION, options });
  if (existsSync(path) && existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, "utf8")) as { key: string; log: WrittenLog };
    if (meta.key === key) return { ...meta.log, path, written: false, ms: 0 };
  }
  const start = performance.now();
  const log = await writeJsonl(path, sessionLog(options));
  writeFileSync(metaPath, JSON.stringify({ key, log }));
  return { ...log, written: true, ms: performance.now() - start };
}
