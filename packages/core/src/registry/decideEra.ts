import { type At, accepted, type Decision, v } from "../decide/decision.js";
import { requireExtension } from "../decide/requireExtension.js";
import { hget } from "../fold/hashDict.js";
import { sameStrings } from "../fold/sameStrings.js";
import type { State } from "../fold/state.js";
import type { RecordEraCommand } from "./eraEvents.js";

/**
 * V1: a connection's era verdict becomes an event when it says something new: the same
 * verdict reached again (a restart, a reconnect) records nothing.
 */
export function decideEra(state: State, command: RecordEraCommand, at: At): Decision {
  const known = requireExtension(state, command.extension);
  if (!known.ok) return known;
  const key = known.key;
  const was = hget(state.extensions, key)?.era;
  const supportedVersions = command.supportedVersions ?? [];
  const authContext = command.authContext ?? null;
  if (
    was &&
    was.era === command.era &&
    was.protocolVersion === command.protocolVersion &&
    was.how === command.how &&
    was.authContext === authContext &&
    sameStrings(was.supportedVersions, supportedVersions)
  )
    return accepted([]);
  return accepted([
    {
      type: "ExtensionEraDetected",
      v,
      ...at,
      extension: key,
      era: command.era,
      protocolVersion: command.protocolVersion,
      supportedVersions,
      how: command.how,
      ...(command.authContext === undefined ? {} : { authContext: command.authContext }),
    },
  ]);
}
