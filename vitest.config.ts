import { defineConfig } from "vitest/config";

// "@toolledger/source" resolves workspace packages to their TypeScript sources, so tests never run
// against a stale dist/. Spawned processes (servers, the CLI) still use the built files.
export default defineConfig({
  resolve: { conditions: ["@toolledger/source"] },
  ssr: { resolve: { conditions: ["@toolledger/source"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "bench/src/**/*.test.ts"],
    // One PostgreSQL server for the run (a throwaway cluster, or $TOOLLEDGER_TEST_PG_URL).
    globalSetup: ["packages/store-postgres/testing/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
