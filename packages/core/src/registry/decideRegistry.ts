import {
  type At,
  accepted,
  type Decision,
  type ParsedCommand,
  rejected,
  v,
} from "../decide/decision.js";
import { requireExtension } from "../decide/requireExtension.js";
import type { ToolledgerEvent } from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { hget } from "../fold/hashDict.js";
import type { State } from "../fold/state.js";
import { nameToKey } from "../naming/nameToKey.js";
import { decideWireNames } from "./decideWireNames.js";
import { fetchApplies } from "./fetchApplies.js";

export type RegistryCommand = Extract<
  ParsedCommand,
  {
    type:
      | "AddExtension"
      | "RemoveExtension"
      | "InvalidateTools"
      | "RecordFetch"
      | "RecordFetchFailure"
      | "StartHost";
  }
>;

/** The registry stream's commands (R6–R14, C1): extensions, their tool fetches, host runs. */
export function decideRegistry(state: State, command: RegistryCommand, at: At): Decision {
  switch (command.type) {
    case "AddExtension": {
      const key = nameToKey(command.name);
      if (key === "") {
        return rejected(
          "EMPTY_EXTENSION_KEY",
          `extension name ${JSON.stringify(command.name)} has no letters, digits, "_" or "-", so its key is empty; give the extension a name with at least one of them`,
        );
      }
      const event: ToolledgerEvent = {
        type: "ExtensionAdded",
        v,
        ...at,
        name: command.name,
        kind: command.kind,
        exposeUnprefixed: command.exposeUnprefixed ?? false,
        hidden: command.hidden ?? false,
        availableTools: command.availableTools ?? [],
        configFingerprint: command.configFingerprint,
      };
      // R6: an identical config is a no-op, so nothing is appended.
      return accepted(evolve(state, event) === state ? [] : [event]);
    }
    case "InvalidateTools":
      // R11: without an extension it is the host's own invalidate, valid with none loaded.
      if (command.extension === undefined)
        return accepted([{ type: "ToolsInvalidated", v, ...at }]);
      return decideForExtension(state, command, command.extension, at);
    case "RemoveExtension":
    case "RecordFetch":
    case "RecordFetchFailure":
      return decideForExtension(state, command, command.extension, at);
    case "StartHost":
      return accepted([
        {
          type: "HostStarted",
          v,
          ...at,
          hostname: command.hostname,
          ...(command.pid === undefined ? {} : { pid: command.pid }),
          ...(command.toolledgerVersion === undefined
            ? {}
            : { toolledgerVersion: command.toolledgerVersion }),
        },
      ]);
  }
}

type ExtensionCommand = Extract<
  RegistryCommand,
  { type: "RemoveExtension" | "InvalidateTools" | "RecordFetch" | "RecordFetchFailure" }
>;

function decideForExtension(
  state: State,
  command: ExtensionCommand,
  extension: string,
  at: At,
): Decision {
  const known = requireExtension(state, extension);
  if (!known.ok) return known;
  const key = known.key;
  switch (command.type) {
    case "RemoveExtension":
      return accepted([{ type: "ExtensionRemoved", v, ...at, extension: key }]);
    case "InvalidateTools":
      return accepted([{ type: "ToolsInvalidated", v, ...at, extension: key }]);
    case "RecordFetch": {
      const ext = hget(state.extensions, key)!;
      const wireNames = fetchApplies(state, ext, command.startedAtVersion, command.scope)
        ? decideWireNames(state, key, command.tools, command.outerPrefixBudget ?? 0)
        : [];
      return accepted([
        {
          type: "ToolsFetched",
          v,
          ...at,
          extension: key,
          startedAtVersion: command.startedAtVersion,
          tools: command.tools,
          ...(command.complete === false ? { complete: false, reason: command.reason ?? "" } : {}),
          ...(wireNames.length > 0 ? { wireNames } : {}),
          ...(command.scope === undefined ? {} : { scope: command.scope }),
          ...(command.oversized?.length ? { oversized: command.oversized } : {}),
        },
      ]);
    }
    case "RecordFetchFailure":
      return accepted([
        {
          type: "ToolsFetchFailed",
          v,
          ...at,
          extension: key,
          startedAtVersion: command.startedAtVersion,
          error: command.error,
          ...(command.scope === undefined ? {} : { scope: command.scope }),
        },
      ]);
  }
}
