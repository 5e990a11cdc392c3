// P1–P6: the pinning family's public exports (re-exported by the package's index).
export { canonicalJson } from "./canonicalJson.js";
export { checkDefinition, FINDING_LIMIT } from "./checks/checkDefinition.js";
export { INSTRUCTION_PHRASES } from "./checks/instructionPhrases.js";
export { revealInvisible } from "./checks/invisibleCharacters.js";
export type { ShadowingContext } from "./checks/shadowing.js";
export { CHANGE_LIST_LIMIT, definitionChanges } from "./definitionChanges.js";
export { type ListedItem, type Listing, listedItems } from "./listedItems.js";
export {
  ApproveDefinitionsCommandSchema,
  CarryPinsCommandSchema,
  MirrorPinsCommandSchema,
  PinDefinitionsCommandSchema,
  RejectDefinitionsCommandSchema,
  SetPinPolicyCommandSchema,
} from "./pinCommands.js";
export {
  type AwaitingItem,
  AwaitingItemSchema,
  type DecidedItem,
  DecidedItemSchema,
  type DefinitionsApproved,
  DefinitionsApprovedSchema,
  type DefinitionsChanged,
  DefinitionsChangedSchema,
  type DefinitionsPinned,
  DefinitionsPinnedSchema,
  type DefinitionsRejected,
  DefinitionsRejectedSchema,
  type DefinitionsRestored,
  DefinitionsRestoredSchema,
  type LedgerEvent,
  LedgerEventSchema,
  PIN_EVENT_TYPES,
  type PinCheck,
  PinCheckSchema,
  type PinEvent,
  type PinFinding,
  PinFindingSchema,
  type PinKind,
  PinKindSchema,
  type PinList,
  PinListSchema,
  type PinnedItem,
  type PinPolicy,
  PinPolicySchema,
  type PinPolicySet,
  PinPolicySetSchema,
  type PinRecordSnapshot,
  type PinsCarried,
  PinsCarriedSchema,
} from "./pinEvents.js";
export { PINS_LEDGER_STREAM } from "./pinLedger.js";
export {
  definitionDigest,
  instructionsDefinition,
  promptDefinition,
  resourceDefinition,
  templateDefinition,
  toolDefinition,
  toolDigest,
} from "./pinnedDefinition.js";
export {
  type ApprovedDefinition,
  type AwaitingDefinition,
  BASELINE_GRACE_MS,
  COALESCE_AFTER,
  type ExtensionPins,
  type PinRecord,
  pinKey,
  type RecordStatus,
  recordStatus,
} from "./pinState.js";
export {
  activePins,
  approvedTool,
  type PinStatus,
  type PinVerdict,
  pinVerdict,
  toolVerdict,
} from "./pinVerdict.js";
export { quarantineMessage } from "./quarantineMessage.js";
export {
  type QuarantinedItem,
  servedInstructions,
  servedPrompt,
} from "./servedCatalogItem.js";
