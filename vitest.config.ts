import { defineConfig } from "vitest/config";

// "@toolledger/source" resolves workspace packages to their TypeScript sources, so tests never run
// against a stale dist/. Spawned processes (servers, the CLI) still use the built files.
export default defineConfig({
  resolve: { conditions: ["@toolledger/source"] },
  ssr: { resolve: { conditions: ["@toolledger/source"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "bench/src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
