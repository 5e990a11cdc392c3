import { hget } from "../fold/hashDict.js";
import type { State, ToolCallStats } from "../fold/state.js";

/** C4: the call counters of one tool (by public name) in this conversation, or undefined when it was never called. */
export function toolCallStats(state: State, publicName: string): ToolCallStats | undefined {
  return hget(state.calls.byTool, publicName);
}
