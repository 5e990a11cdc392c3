import { authorizationChanged } from "../authorization/evolveAuthorization.js";
import { evolveCalls } from "../calls/evolveCalls.js";
import { evolveTasks } from "../calls/evolveTasks.js";
import { catalogChanged } from "../catalog/evolveCatalog.js";
import { evolveConversation } from "../conversation/evolveConversation.js";
import { evolveImported } from "../conversation/evolveImported.js";
import { evolveDeferral } from "../deferral/evolveDeferral.js";
import type { ToolledgerEvent } from "../events/events.js";
import { evolvePinning } from "../pinning/evolvePinning.js";
import { eraDetected } from "../registry/evolveEra.js";
import { evolveRegistry } from "../registry/evolveRegistry.js";
import { evolveSearch } from "../search/evolveSearch.js";
import type { State } from "./state.js";

/**
 * The reducer (E2): pure and total. It folds what was decided and never re-validates;
 * when an event changes nothing it returns the same state object. Each event family folds
 * in its own folder.
 */
export function evolve(state: State, event: ToolledgerEvent): State {
  switch (event.type) {
    case "ExtensionAdded":
    case "ExtensionRemoved":
    case "ToolsInvalidated":
    case "ToolsFetched":
    case "ToolsFetchFailed":
    case "HostStarted":
      return evolveRegistry(state, event);
    case "DeferralConfigured":
    case "EnableToolsRequested":
    case "EnableToolsResponded":
    case "Compacted":
    case "Cleared":
      return evolveDeferral(state, event);
    case "PromptsInvalidated":
    case "PromptsFetched":
    case "ResourcesInvalidated":
    case "ResourcesFetched":
      return catalogChanged(state, event);
    case "ConversationStarted":
    case "ConversationResumed":
    case "ConversationClosed":
      return evolveConversation(state, event);
    case "ToolCallStarted":
    case "ToolCallFinished":
      return evolveCalls(state, event);
    case "OAuthAuthorizationRequired":
    case "OAuthAuthorized":
    case "OAuthTokenRefreshed":
    case "OAuthAuthorizationFailed":
      return authorizationChanged(state, event);
    case "ExtensionEraDetected":
      return eraDetected(state, event);
    case "SessionImported":
    case "UsageRecorded":
      return evolveImported(state, event);
    case "ToolsSearched":
      return evolveSearch(state, event);
    case "PinPolicySet":
    case "PinsCarried":
    case "DefinitionsPinned":
    case "DefinitionsChanged":
    case "DefinitionsRestored":
    case "DefinitionsApproved":
    case "DefinitionsRejected":
      return evolvePinning(state, event);
    case "TaskCreated":
    case "TaskStatusChanged":
      return evolveTasks(state, event);
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
