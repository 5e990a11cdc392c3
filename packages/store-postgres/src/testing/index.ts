// Test and benchmark support: a throwaway PostgreSQL cluster, and the server tests use.
// Built to dist/testing so benchmarks (plain Node) can use it too.

export { commitTimes, type RawBatch, rawAppend } from "./rawAppend.js";
export {
  findPostgresBinaries,
  startThrowawayCluster,
  type ThrowawayCluster,
  type ThrowawayClusterOptions,
} from "./throwawayCluster.js";

import { fileURLToPath } from "node:url";

/** The built worker process (`dist/testing/storeWorker.js`) the benchmarks spawn as extra writers. */
export const STORE_WORKER = fileURLToPath(new URL("./storeWorker.js", import.meta.url));
