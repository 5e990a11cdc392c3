import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temporary directory for database files; `remove()` deletes it and everything in it. */
export function tempDir(prefix = "toolledger-store-"): {
  path: string;
  file(name: string): string;
  remove(): void;
} {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    file: (name) => join(path, name),
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}
