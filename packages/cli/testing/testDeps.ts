import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { Deps } from "../src/program/deps.js";

export interface Captured {
  deps: Deps;
  stdout: () => string;
  stderr: () => string;
  dir: string;
}

/** Real temp directories and captured output; nothing is mocked but the terminal. */
export function testDeps(
  options: { env?: Record<string, string>; tty?: boolean; now?: Date } = {},
): Captured {
  const dir = mkdtempSync(join(tmpdir(), "toolledger-cli-"));
  let out = "";
  let err = "";
  const deps: Deps = {
    env: { XDG_DATA_HOME: join(dir, "data"), ...options.env },
    cwd: dir,
    home: join(dir, "home"),
    stdout: {
      write: (s) => {
        out += s;
      },
      isTTY: options.tty ?? false,
    },
    stderr: {
      write: (s) => {
        err += s;
      },
      isTTY: options.tty ?? false,
    },
    now: () => options.now ?? new Date("2026-11-29T12:00:00.000Z"),
    stdio: { input: new PassThrough(), output: new PassThrough() },
    signal: new AbortController().signal,
    version: "0.0.0-test",
  };
  return { deps, stdout: () => out, stderr: () => err, dir };
}
