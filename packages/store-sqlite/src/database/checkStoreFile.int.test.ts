import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { sampleBatch } from "@toolledger/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteEventStore } from "../eventStore/sqliteEventStore.js";
import {
  DIST_INDEX,
  makeReadOnly,
  makeWritable,
  runAsReader,
} from "../testing/readOnlyFolder.test-helpers.js";
import { tempDir } from "../testing/tempDir.test-helpers.js";
import { checkStoreFile } from "./checkStoreFile.js";

/** Overwrites `count` pages in the middle of the file, as a stray `dd` or a bad disk would. */
function overwritePages(file: string, at: number, count: number, fill: "random" | "zero"): void {
  const pageSize = 4096;
  const page = Math.floor((statSync(file).size / pageSize) * at);
  const bytes = Buffer.alloc(pageSize * count);
  if (fill === "random") for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + 13) % 251;
  const fd = openSync(file, "r+");
  try {
    writeSync(fd, bytes, 0, bytes.length, page * pageSize);
  } finally {
    closeSync(fd);
  }
}

describe("checkStoreFile: a writer checks the file before writing (issue 10)", () => {
  let dir = tempDir();
  afterEach(() => {
    dir.remove();
    dir = tempDir();
  });

  async function written(): Promise<string> {
    const file = dir.file("s.db");
    const store = openSqliteEventStore(file, { verify: true });
    for (let i = 0; i < 20; i++)
      expect((await store.append(`s${i}`, sampleBatch(`b${i}`, 100))).ok).toBe(true);
    await store.close();
    return file;
  }

  it("a new file needs nothing; a file left by a clean close is not read again; a changed one is", async () => {
    expect(checkStoreFile(dir.file("none.db"))).toMatchObject({ ok: true, method: "new" });
    const file = await written();
    expect(checkStoreFile(file)).toMatchObject({ ok: true, method: "unchanged" });
    // Anything but a toolledger writer (here, a reader that writes) makes the next check read every page.
    const other = openSqliteEventStore(file);
    expect((await other.append("x", sampleBatch("x", 1))).ok).toBe(true);
    await other.close();
    expect(checkStoreFile(file)).toMatchObject({ ok: true, method: "quick_check" });
    expect(checkStoreFile(file)).toMatchObject({ ok: true, method: "unchanged" });
  });

  for (const fill of ["random", "zero"] as const) {
    it(`pages overwritten mid-file (${fill}) are found, and a writer refuses the file without writing`, async () => {
      const file = await written();
      overwritePages(file, 0.5, 2, fill);
      const before = readFileSync(file);
      const check = checkStoreFile(file);
      expect(check).toMatchObject({ ok: false, method: "quick_check" });
      expect(check.problems.length).toBeGreaterThan(0);
      expect(() => openSqliteEventStore(file, { verify: true })).toThrow(
        expect.objectContaining({
          code: "STORE_CORRUPT",
          message: expect.stringMatching(/s\.db is damaged: .*nothing was written/),
        }),
      );
      expect(readFileSync(file).equals(before)).toBe(true);
    });
  }

  it("a damaged header is found without opening the file", async () => {
    const file = await written();
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.from("garbage garbage!"), 0, 16, 0);
    closeSync(fd);
    expect(checkStoreFile(file)).toMatchObject({
      ok: false,
      problems: [expect.stringContaining("not SQLite's header")],
    });
  });

  it("a file this process cannot write (issue 34): every page read through a read-only connection, nothing written, and why it is read-only", async () => {
    const file = await written();
    const damaged = dir.file("damaged.db");
    const bytes = readFileSync(file);
    writeFileSync(damaged, bytes);
    overwritePages(damaged, 0.5, 2, "random");
    const before = readdirSync(dir.path)
      .sort()
      .map((n) => [n, readFileSync(dir.file(n)).toString("base64")]);
    makeReadOnly(dir.path);
    try {
      const checks = runAsReader(
        `import { checkStoreFile } from ${JSON.stringify(DIST_INDEX)};
         const pick = (c) => ({ ok: c.ok, method: c.method, readOnly: c.readOnly, problems: c.problems.length });
         console.log(JSON.stringify([pick(checkStoreFile(${JSON.stringify(file)})), pick(checkStoreFile(${JSON.stringify(damaged)}))]));`,
      ) as { ok: boolean; method: string; readOnly: string | null; problems: number }[];
      expect(checks[0]).toEqual({
        ok: true,
        method: "quick_check",
        readOnly: expect.stringMatching(/^the file is read-only, and so is its folder /),
        problems: 0,
      });
      expect(checks[1]).toMatchObject({ ok: false, method: "quick_check" });
      expect(checks[1]!.problems).toBeGreaterThan(0);
    } finally {
      makeWritable(dir.path);
    }
    expect(
      readdirSync(dir.path)
        .sort()
        .map((n) => [n, readFileSync(dir.file(n)).toString("base64")]),
    ).toEqual(before);
    expect(checkStoreFile(file).readOnly).toBeNull();
  });
});
