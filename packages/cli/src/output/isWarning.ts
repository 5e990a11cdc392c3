import type { Diagnostic } from "@toolledger/core";

/**
 * Whether a diagnostic deserves a warning in human output. Two are normal events, not
 * faults: a fetch that raced a `list_changed` (R11: it was ignored and fetched again, as
 * servers that announce their tools right after start cause on every run), and an
 * `enable_tools` request that failed because the model named a tool wrong (D5: an outcome,
 * shown as a failed enable). Both stay in `--json` and in `replay`.
 */
export function isWarning(d: Diagnostic): boolean {
  if (d.kind === "stale_fetch") return false;
  if (d.kind === "anomaly" && d.anomaly === "failed_response") return false;
  return true;
}
