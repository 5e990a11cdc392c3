import { hget, hkeys } from "../fold/hashDict.js";
import type { State } from "../fold/state.js";
import { nameToKey } from "../naming/nameToKey.js";
import { type Rejection, rejected } from "./decision.js";

/** The key of a registered extension (R1), or the refusal that names the known ones. */
export function requireExtension(
  state: State,
  extension: string,
): { ok: true; key: string } | Rejection {
  const key = nameToKey(extension);
  if (!hget(state.extensions, key)) {
    return rejected(
      "UNKNOWN_EXTENSION",
      `no extension ${JSON.stringify(extension)} (key ${JSON.stringify(key)}); known: ${hkeys(state.extensions).sort().join(", ") || "none"}`,
    );
  }
  return { ok: true, key };
}
