/**
 * Every event type and version a log may hold (`<type>@<v>`), by the catalogue version that
 * added it; each toolledger release names its catalogue in CHANGELOG.md. A release that adds
 * an event type or version appends a catalogue version, and each store raises its schema
 * version with it (a migration step that may change no table): an older toolledger then
 * refuses the database with SCHEMA_TOO_NEW instead of failing on an event it cannot read.
 */
export const EVENT_CATALOG: readonly {
  version: number;
  added: readonly string[];
  /**
   * Events of an earlier catalogue that may now hold what an older reader refuses (a new enum
   * value, a new field), as `<type>@<v>: <what>`: the schema step makes older releases refuse
   * the store, as for a new type.
   */
  changed?: readonly string[];
}[] = [
  {
    // toolledger 0.1.0: one stream per session.
    version: 1,
    added: [
      "ExtensionAdded@1",
      "ExtensionRemoved@1",
      "ToolsInvalidated@1",
      "ToolsFetched@1",
      "ToolsFetchFailed@1",
      "DeferralConfigured@1",
      "EnableToolsRequested@1",
      "EnableToolsResponded@1",
      "Compacted@1",
      "Cleared@1",
    ],
  },
  {
    // toolledger 0.2.0: a registry stream per host, a stream per conversation, calls, prompts
    // and resources, tasks, OAuth authorizations, searches, imported goose sessions, pinned
    // definitions.
    version: 2,
    added: [
      "PromptsInvalidated@1",
      "PromptsFetched@1",
      "ResourcesInvalidated@1",
      "ResourcesFetched@1",
      "HostStarted@1",
      "ConversationStarted@1",
      "ConversationResumed@1",
      "ConversationClosed@1",
      "ToolCallStarted@1",
      "ToolCallFinished@1",
      "TaskCreated@1",
      "TaskStatusChanged@1",
      "OAuthAuthorizationRequired@1",
      "OAuthAuthorized@1",
      "OAuthTokenRefreshed@1",
      "OAuthAuthorizationFailed@1",
      "ToolsSearched@1",
      "SessionImported@1",
      "UsageRecorded@1",
      // Pinned definitions (P1–P6, issue 23).
      "PinPolicySet@1",
      "PinsCarried@1",
      "DefinitionsPinned@1",
      "DefinitionsChanged@1",
      "DefinitionsRestored@1",
      "DefinitionsApproved@1",
      "DefinitionsRejected@1",
    ],
  },
  {
    // toolledger 0.3.0: write-ahead calls and the ends of lost gateways (L1–L3); lists in pages (V3).
    version: 3,
    added: [],
    changed: [
      "ToolCallFinished@1: outcome `unknown` (L3: nobody saw the call end)",
      "ConversationClosed@1: `lastSeen` (L3: a conversation whose gateway is gone, closed as `lost`)",
      "ToolsFetched@1: `oversized` (V3: definitions over the cap, left out)",
      "PromptsFetched@1: `oversized` (V3)",
      "ResourcesFetched@1: `oversized` (V3)",
    ],
  },
  {
    // toolledger 0.4.0: both protocol eras (V1): each upstream's era verdict.
    version: 4,
    added: ["ExtensionEraDetected@1"],
  },
];

/** The catalogue this build writes and reads in full. */
export const EVENT_CATALOG_VERSION: number = EVENT_CATALOG.at(-1)!.version;
