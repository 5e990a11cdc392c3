import type { McpTool } from "../events/events.js";
import { hget } from "../fold/hashDict.js";
import type { State } from "../fold/state.js";
import { assignWireNames } from "../naming/nameOwners.js";
import { fitsWire, MAX_WIRE_NAME_LENGTH } from "../naming/wireName.js";
import { registerTools } from "./registerTools.js";

/**
 * R14: decides, once, the wire names of a fetch's tools that need one, to be recorded with
 * it: the extension's earlier choice when the name still needs one and it still fits, else
 * a name within 64 minus the host's outer-prefix budget. Folding the event applies exactly
 * these (see `evolveRegistry`).
 */
export function decideWireNames(
  state: State,
  key: string,
  tools: readonly McpTool[],
  budget: number,
): { rawName: string; wireName: string }[] {
  const ext = hget(state.extensions, key)!;
  const limit = MAX_WIRE_NAME_LENGTH - budget;
  // The tools the fetch would register (R9), as fresh objects named by their public names.
  const registered = registerTools(ext, tools).tools;
  // The earlier choice is kept for a name that still needs one; a name that now fits is served as is.
  const earlier = new Map<string, string>();
  for (const t of ext.tools)
    if (t.wireName !== t.publicName && !fitsWire(t.publicName, limit))
      earlier.set(t.rawName, t.wireName);
  const wires = assignWireNames(
    state.extensions,
    state.unprefixed,
    state.wireNames,
    ext,
    registered,
    earlier,
    limit,
  );
  return registered.flatMap((t, i) =>
    wires[i] === t.publicName ? [] : [{ rawName: t.rawName, wireName: wires[i]! }],
  );
}
