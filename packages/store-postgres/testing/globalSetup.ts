// vitest globalSetup: one PostgreSQL server for the whole test run. A server named by
// TOOLLEDGER_TEST_PG_URL is used as is; otherwise a throwaway cluster is made and removed at
// the end. With neither, PostgreSQL tests report themselves skipped with the reason, except
// under CI, where that is an error: CI must run them for real.
import type { TestProject } from "vitest/node";
import {
  findPostgresBinaries,
  startThrowawayCluster,
  type ThrowawayCluster,
} from "../src/testing/throwawayCluster.js";

export const TEST_URL_ENV = "TOOLLEDGER_TEST_PG_URL";

declare module "vitest" {
  export interface ProvidedContext {
    /** The server's URL, or null when the PostgreSQL tests are skipped. */
    postgresUrl: string | null;
    /** Why they are skipped (one line), or null. */
    postgresSkipReason: string | null;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env[TEST_URL_ENV];
  let cluster: ThrowawayCluster | null = null;
  let skip: string | null = null;
  if (!given) {
    if (findPostgresBinaries() === null) {
      skip = `no PostgreSQL server binaries (install postgresql, set TOOLLEDGER_PG_BIN, or set ${TEST_URL_ENV})`;
    } else {
      try {
        cluster = await startThrowawayCluster({
          // A throwaway cluster: no fsync (a killed server still recovers from the OS cache).
          settings: { fsync: "off", max_connections: "300" },
        });
      } catch (error) {
        skip = `the throwaway PostgreSQL cluster did not start: ${(error as Error).message.split("\n")[0]}`;
      }
    }
  }
  if (skip !== null && process.env.CI) {
    throw new Error(`PostgreSQL tests cannot run under CI: ${skip}`);
  }
  if (skip !== null) console.warn(`PostgreSQL tests skipped: ${skip}`);
  project.provide("postgresUrl", given || cluster?.url || null);
  project.provide("postgresSkipReason", skip);
  return async () => {
    await cluster?.remove();
  };
}
