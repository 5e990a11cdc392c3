import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { withSql } from "@toolledger/store-postgres/vitest";
import { describe, expect, test } from "vitest";
import { sampleLog, toJsonl } from "../../testing/sampleLog.js";
import { cleanEnv, runCli, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { describeEachStore, type TestDatabase } from "../../testing/testDatabases.js";
import { EXIT } from "../program/exitCodes.js";

// Issue 25: a database a newer toolledger wrote (its schema version above this build's) is
// refused by every command, reading or writing, with what to do, and is left as it was.

const SQLITE_SCHEMA = 4;
const POSTGRES_SCHEMA = 3;

/** What a newer toolledger leaves: the store's schema version one above this build's. */
async function writtenByNewer(db: TestDatabase, location: string): Promise<number> {
  if (db.kind === "sqlite") {
    // PRAGMA user_version is the header's 4-byte big-endian integer at offset 60.
    const header = Buffer.alloc(4);
    header.writeUInt32BE(SQLITE_SCHEMA + 1);
    const fd = openSync(location, "r+");
    writeSync(fd, header, 0, 4, 60);
    closeSync(fd);
    return SQLITE_SCHEMA + 1;
  }
  const url = new URL(location);
  const schema = url.searchParams.get("schema")!;
  url.searchParams.delete("schema");
  await withSql(url.href, (query) =>
    query(`UPDATE "${schema}".store_info SET schema_version = $1`, [POSTGRES_SCHEMA + 1]),
  );
  return POSTGRES_SCHEMA + 1;
}

async function snapshot(db: TestDatabase, location: string): Promise<unknown> {
  if (db.kind === "sqlite") return readFileSync(location);
  const url = new URL(location);
  const schema = url.searchParams.get("schema")!;
  url.searchParams.delete("schema");
  return withSql(url.href, (query) =>
    query(
      `SELECT (SELECT schema_version FROM "${schema}".store_info) AS v, (SELECT count(*)::int FROM "${schema}".events) AS n`,
    ),
  );
}

describeEachStore("a database written by a newer toolledger", (db) => {
  test("every command refuses it, says to upgrade, and changes nothing", async () => {
    const dir = tempDir();
    const env = cleanEnv(dir);
    const location = db.fresh(dir, "newer");
    const log = join(dir, "sample.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    const imported = await runCli(["import", log, "--session", "s1", "--db", location], {
      cwd: dir,
      env,
    });
    expect(imported.code, imported.stderr).toBe(0);
    const version = await writtenByNewer(db, location);
    const before = await snapshot(db, location);

    const config = join(dir, "servers.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { notes: { command: process.execPath, args: [join(SERVERS, "notes.js")] } },
      }),
    );
    for (const args of [
      ["sessions"],
      ["replay", "s1"],
      ["audit"],
      ["export", "s1"],
      ["import", log, "--session", "s2"],
      ["demo"],
      ["serve", "--config", config],
    ]) {
      const r = await runCli([...args, "--db", location], { cwd: dir, env, timeoutMs: 60_000 });
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(EXIT.badInput);
      expect(r.stderr).toContain(`schema version ${version}, newer than ${version - 1}`);
      expect(r.stderr).toContain(
        "hint: a newer toolledger wrote it: upgrade this one (npm i -g toolledger",
      );
      expect(r.stdout).toBe("");
    }
    expect(await snapshot(db, location)).toEqual(before);
  }, 180_000);
});

describe("the schema versions this test writes above", () => {
  test("are the stores' own", async () => {
    const { SCHEMA_VERSION: sqlite } = await import("@toolledger/store-sqlite");
    const { SCHEMA_VERSION: postgres } = await import("@toolledger/store-postgres");
    expect([sqlite, postgres]).toEqual([SQLITE_SCHEMA, POSTGRES_SCHEMA]);
  });
});
