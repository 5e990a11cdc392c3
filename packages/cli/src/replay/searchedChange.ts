import { reproduceSearch, type State, type ToolsSearched } from "@toolledger/core";
import type { Change } from "./change.js";

/**
 * S2: a recorded search as replay shows it: the query, the names the model was offered, and
 * whether the search, run again on the state just before it, gives the same names.
 */
export function searchedChange(before: State, event: ToolsSearched): Change {
  const again = reproduceSearch(before, event);
  return {
    kind: "searched",
    callId: event.callId,
    query: event.query,
    results: [...event.results],
    error: event.error?.message ?? null,
    reproduced: again.same,
    ...(again.same ? {} : { resultsNow: again.results }),
  };
}
