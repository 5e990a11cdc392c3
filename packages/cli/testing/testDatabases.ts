// The CLI's end-to-end tests run on both stores: a SQLite file, and a schema of the run's
// PostgreSQL server (skipped, with the reason, when there is none).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describeWithPostgres, uniqueSchema, withSql } from "@toolledger/store-postgres/vitest";
import { describe } from "vitest";

export interface TestDatabase {
  kind: "sqlite" | "postgres";
  /** A new, empty database location for one test: a file in `dir`, or a schema of the server. */
  fresh(dir: string, name: string): string;
  /** Whether an event store exists there (reading commands must create none). */
  exists(location: string): Promise<boolean>;
  /** The location as the CLI shows it (a URL's password as `***`). */
  shown(location: string): string;
}

const sqlite: TestDatabase = {
  kind: "sqlite",
  fresh: (dir, name) => join(dir, `${name}.db`),
  exists: async (location) => existsSync(location),
  shown: (location) => location,
};

function postgres(url: string): TestDatabase {
  return {
    kind: "postgres",
    fresh: () => {
      const u = new URL(url);
      u.searchParams.set("schema", uniqueSchema("e2e"));
      return u.href;
    },
    exists: async (location) => {
      const schema = new URL(location).searchParams.get("schema")!;
      return withSql(url, async (query) => {
        const [row] = await query<{ present: boolean }>(
          "SELECT to_regclass($1) IS NOT NULL AS present",
          [`"${schema}".store_info`],
        );
        return row?.present ?? false;
      });
    },
    shown: (location) => {
      const u = new URL(location);
      if (u.password !== "") u.password = "***";
      return u.href;
    },
  };
}

/** Registers `body` once per store (`describe` named after it). */
export function describeEachStore(name: string, body: (db: TestDatabase) => void): void {
  describe(`${name} [sqlite]`, () => body(sqlite));
  describeWithPostgres(`${name} [postgres]`, (url) => body(postgres(url)));
}
