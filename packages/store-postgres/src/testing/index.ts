// Test and benchmark support: a throwaway PostgreSQL cluster, and the server tests use.
// Built to dist/testing so benchmarks (plain Node) can use it too.
export {
  findPostgresBinaries,
  startThrowawayCluster,
  type ThrowawayCluster,
  type ThrowawayClusterOptions,
} from "./throwawayCluster.js";
