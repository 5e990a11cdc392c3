import { hget, hset } from "../fold/hashDict.js";
import { ignore } from "../fold/ignore.js";
import type { State } from "../fold/state.js";
import { update } from "../fold/update.js";
import { nameToKey } from "../naming/nameToKey.js";
import type { ExtensionEraDetected } from "./eraEvents.js";

/** V1: an era verdict changes its extension's `era` and nothing else (tools, cache version stay). */
export function eraDetected(state: State, e: ExtensionEraDetected): State {
  const key = nameToKey(e.extension);
  const ext = hget(state.extensions, key);
  if (!ext) return ignore(state, e.type, `no extension ${JSON.stringify(key)}`);
  const era = {
    era: e.era,
    protocolVersion: e.protocolVersion,
    supportedVersions: e.supportedVersions,
    how: e.how,
    authContext: e.authContext ?? null,
    at: e.at ?? null,
  };
  return update(state, { extensions: hset(state.extensions, key, { ...ext, era }) });
}
