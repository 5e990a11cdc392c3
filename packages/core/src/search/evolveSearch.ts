import type { State } from "../fold/state.js";
import type { ToolsSearched } from "./searchEvents.js";

/**
 * S2: a search changes nothing the model sees: what it was offered is in the event itself,
 * and enabling stays `enable_tools` (D5). The state is returned as it was.
 */
export function evolveSearch(state: State, _event: ToolsSearched): State {
  return state;
}
