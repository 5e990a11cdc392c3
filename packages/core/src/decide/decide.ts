import { decideAuthorization } from "../authorization/decideAuthorization.js";
import { decideCalls } from "../calls/decideCalls.js";
import { decideTasks } from "../calls/decideTasks.js";
import { decideCatalog } from "../catalog/decideCatalog.js";
import { decideConversation } from "../conversation/decideConversation.js";
import { decideDeferral } from "../deferral/decideDeferral.js";
import type { State } from "../fold/state.js";
import { decidePinning } from "../pinning/decidePinning.js";
import { decideEra } from "../registry/decideEra.js";
import { decideRegistry } from "../registry/decideRegistry.js";
import { decideSearch } from "../search/decideSearch.js";
import type { Command } from "./command.js";
import type { At, Decision } from "./decision.js";
import { parseCommand } from "./parseCommand.js";

export type { CommandError, CommandErrorCode, Decision } from "./decision.js";

/**
 * E4: decisions live here; the reducer only folds what was decided. Each event family
 * decides in its own folder.
 * E6: the command is validated at run time (JavaScript hosts have no types): `decide`
 * never throws, and every event it returns decodes and folds.
 */
export function decide(state: State, input: Command): Decision {
  const parsed = parseCommand(input);
  if (!parsed.ok) return parsed;
  const command = parsed.command;
  const at: At = command.at === undefined ? {} : { at: command.at };
  switch (command.type) {
    case "AddExtension":
    case "RemoveExtension":
    case "InvalidateTools":
    case "RecordFetch":
    case "RecordFetchFailure":
    case "StartHost":
      return decideRegistry(state, command, at);
    case "InvalidatePrompts":
    case "InvalidateResources":
    case "RecordPrompts":
    case "RecordResources":
      return decideCatalog(state, command, at);
    case "ConfigureDeferral":
    case "EnableTools":
    case "RequestEnableTools":
    case "ApproveEnableTools":
    case "DenyEnableTools":
    case "Compact":
    case "Clear":
      return decideDeferral(state, command, at);
    case "StartConversation":
    case "ResumeConversation":
    case "CloseConversation":
    case "EndLostConversation":
      return decideConversation(state, command, at);
    case "CreateTask":
    case "ChangeTaskStatus":
      return decideTasks(state, command, at);
    case "StartCall":
    case "FinishCall":
      return decideCalls(state, command, at);
    case "SearchTools":
      return decideSearch(state, command, at);
    case "SetPinPolicy":
    case "PinDefinitions":
    case "ApproveDefinitions":
    case "RejectDefinitions":
    case "CarryPins":
    case "MirrorPins":
      return decidePinning(state, command, at);
    case "RequireAuthorization":
    case "RecordAuthorization":
    case "RecordTokenRefresh":
    case "RecordAuthorizationFailure":
      return decideAuthorization(state, command, at);
    case "RecordEra":
      return decideEra(state, command, at);
    default: {
      const unreachable: never = command;
      return unreachable;
    }
  }
}
