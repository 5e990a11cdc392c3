// Helpers for tests that need the PostgreSQL server of the run (see globalSetup.ts).
import { randomBytes } from "node:crypto";
import { describe, inject, it } from "vitest";
import { connect } from "../src/database/connection.js";
import { quoteIdent } from "../src/database/schema.js";

/** The test server's URL, or null when PostgreSQL tests are skipped. */
export function postgresTestUrl(): string | null {
  return inject("postgresUrl");
}

/**
 * A `describe` that runs with the test server's URL, or is reported as skipped with the
 * one-line reason (never silently passed) when there is no server.
 */
export function describeWithPostgres(name: string, body: (url: string) => void): void {
  const url = inject("postgresUrl");
  if (url === null) {
    describe.skip(`${name} (skipped: ${inject("postgresSkipReason") ?? "no server"})`, () => {
      it("needs a PostgreSQL server", () => {});
    });
    return;
  }
  describe(name, () => body(url));
}

let counter = 0;

/** A schema name no other test (or test process) uses. */
export function uniqueSchema(prefix = "t"): string {
  return `${prefix}_${process.pid}_${counter++}_${randomBytes(3).toString("hex")}`;
}

/** Drops schemas made by a test (on a shared server; a throwaway cluster is removed anyway). */
export async function dropSchemas(url: string, schemas: readonly string[]): Promise<void> {
  if (schemas.length === 0) return;
  await withSql(url, async (query) => {
    for (const schema of schemas) {
      await query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    }
  });
}

/** Raw SQL on the test server, for tests that damage or inspect a store on purpose. */
export async function withSql<T>(
  url: string,
  fn: (query: <R>(text: string, values?: readonly unknown[]) => Promise<R[]>) => Promise<T>,
): Promise<T> {
  const connection = connect({
    url,
    max: 1,
    lockTimeoutMs: 10_000,
    synchronousCommit: false,
    connectTimeoutMs: 10_000,
  });
  try {
    return await fn(connection.query);
  } finally {
    await connection.end();
  }
}
