import { mkdtempSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LockTimeoutError, withFileLock } from "./fileLock.js";

const lockPath = () => join(mkdtempSync(join(tmpdir(), "toolledger-lock-")), "x.lock");

describe("A2 one refresh at a time: the file lock", () => {
  it("serialises holders: the second runs after the first released", async () => {
    const path = lockPath();
    const order: string[] = [];
    let release!: () => void;
    const first = withFileLock(path, async () => {
      order.push("first in");
      await new Promise<void>((r) => {
        release = r;
      });
      order.push("first out");
    });
    await new Promise((r) => setTimeout(r, 20));
    const second = withFileLock(path, async () => {
      order.push("second");
    });
    await new Promise((r) => setTimeout(r, 60));
    expect(order).toEqual(["first in"]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["first in", "first out", "second"]);
  });

  it("takes over a lock whose holder died, and times out on a live one, naming it", async () => {
    const path = lockPath();
    // A pid that cannot be alive on this machine.
    writeFileSync(
      path,
      JSON.stringify({ pid: 2 ** 22 + 17, host: hostname(), id: "dead", at: Date.now() }),
    );
    expect(await withFileLock(path, async () => "ran")).toBe("ran");
    writeFileSync(
      path,
      JSON.stringify({ pid: process.pid, host: hostname(), id: "alive", at: Date.now() }),
    );
    await expect(withFileLock(path, async () => "ran", { timeoutMs: 100 })).rejects.toThrow(
      LockTimeoutError,
    );
    await expect(withFileLock(path, async () => "ran", { timeoutMs: 100 })).rejects.toThrow(
      new RegExp(`held by pid ${process.pid}`),
    );
  });

  it("releases when the work throws", async () => {
    const path = lockPath();
    await expect(withFileLock(path, async () => Promise.reject(new Error("boom")))).rejects.toThrow(
      "boom",
    );
    expect(await withFileLock(path, async () => "again", { timeoutMs: 100 })).toBe("again");
  });
});
