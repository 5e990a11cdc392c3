// `@toolledger/core/testing`: the store contracts, samples and helpers the packages' tests
// share. For tests only.

export { assertLogInvariants } from "./assertLogInvariants.js";
export {
  describeEventStoreContract,
  type EventStoreContractOptions,
} from "./eventStoreContract.js";
export { ev, withIds } from "./events.js";
export { type FindLeaksOptions, findLeaks } from "./findLeaks.js";
export { initializeBody, MCP_POST_HEADERS, postInitialize } from "./mcpHttp.js";
export { asAnotherUser, exited, lines, spawnWorker } from "./processes.js";
export { fileUrlLiteral, type ReadmeExample, runReadmeExample } from "./readmeExample.js";
export { sampleBatch, sampleEvent } from "./samples.js";
export {
  describeSessionStoreContract,
  type SessionStoreContractOptions,
} from "./sessionStoreContract.js";
export {
  allReady,
  expectAcknowledgedBatches,
  expectAllExitCleanly,
  expectOneWinnerPerVersion,
  expectWinnersStored,
  type WorkerRun,
  watchWorker,
} from "./storeWorkerRuns.js";
export { anyJson, toolLike } from "./toolArbitrary.js";
