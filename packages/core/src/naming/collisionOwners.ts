import { get } from "../fold/records.js";
import type { State } from "../fold/state.js";

/** R10: the extensions (keys, first one wins) that all produce `publicName`, when more than one does. */
export function collisionOwners(state: State, publicName: string): readonly string[] | undefined {
  return get(state.collisions, publicName);
}
