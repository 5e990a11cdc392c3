/**
 * P4: the stream that holds every pinning decision of a database, across host runs and the
 * hosts that share it: baselines, changes, approvals and rejections. Hosts decide against it,
 * follow it and copy what concerns their servers into their registry streams; `toolledger
 * approve` and `reject` append to it.
 */
export const PINS_LEDGER_STREAM = "pins";
