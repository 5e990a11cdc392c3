/** One behaviour rule as the view cites it: a one-line summary, and where the rule is written. */
export interface ViewRule {
  id: string;
  title: string;
  summary: string;
  /** Link to the rule in the project's rules document, when that document was found. */
  href?: string;
}

/**
 * One line per rule, so the page explains an event without the rules document at hand
 * (rule numbers are stable; the full text is in `docs/rules.md`).
 */
export const RULE_SUMMARIES: Readonly<Record<string, { title: string; summary: string }>> = {
  R1: {
    title: "nameToKey",
    summary:
      "An extension's key comes from its display name: ASCII letters, digits, _ and - kept, white space dropped, everything else _, lowercased.",
  },
  R2: {
    title: "Display name",
    summary: "The display name is kept as given; the key is used for every comparison.",
  },
  R3: {
    title: "Public names",
    summary:
      "A tool is published as <key>__<rawName>, or as its raw name when its extension exposes unprefixed tools.",
  },
  R4: {
    title: "Owner metadata",
    summary:
      "Every registered tool carries its owner's key in _meta, overwriting what the server sent.",
  },
  R5: {
    title: "Ownership",
    summary: "A tool's owner is the key in its owner metadata, else the text before its first __.",
  },
  R6: {
    title: "Adding",
    summary:
      "Adding an extension with an identical config changes nothing; a different config replaces it and drops its tools until fetched again.",
  },
  R7: { title: "Removing", summary: "Removing an extension drops it and its tools." },
  R8: {
    title: "Hidden extensions",
    summary:
      "Extensions whose key starts with _ or added hidden never appear to users or the model.",
  },
  R9: {
    title: "Fetching",
    summary:
      "A fetch registers the listed tools (allow-list applied); a failed fetch leaves the extension with none; a partial one keeps what it got, with a diagnostic.",
  },
  R10: {
    title: "Duplicates",
    summary:
      "When two tools get the same public name the first in a fixed order wins (visible before hidden, then by key) and the loser is a collision diagnostic.",
  },
  R11: {
    title: "Cache version",
    summary:
      "Every change and list_changed bumps one version; a fetch that started before the current version is stale: kept in the log, changing nothing.",
  },
  R12: {
    title: "Filtering",
    summary:
      "Listing by extension or excluding one compares normalised owners; results are sorted by public name.",
  },
  R13: {
    title: "Resolving a call",
    summary:
      "A name resolves exactly, else one mangled form is recovered; anything else fails with close names.",
  },
  R14: {
    title: "Names every model API accepts",
    summary:
      "A public name outside ^[a-zA-Z0-9_-]{1,64}$ gets a deterministic, recorded wire name; names that fit are unchanged.",
  },
  D1: { title: "Config", summary: "Deferral is off or lookup (exact names only); off by default." },
  D2: {
    title: "Always-load list",
    summary:
      "Exact public names that stay eager while deferral is on; unknown entries are kept and reported.",
  },
  D3: {
    title: "Visibility",
    summary:
      'A tool whose _meta.ui.visibility lacks "model" is app-only: never shown to the model, deferred or enabled.',
  },
  D4: {
    title: "Classes",
    summary:
      "With deferral on, platform, always-load and enabled tools are eager (full schema); every other tool is deferred (name only).",
  },
  D5: {
    title: "enable_tools",
    summary:
      "A request is validated against the current registry: one bad name fails it whole; success loads the schemas from the next response on.",
  },
  D6: {
    title: "The pairing rule",
    summary:
      "The enabled set is the union of requests with a successful response of the same call id; anything unpaired adds nothing.",
  },
  D7: {
    title: "Compaction",
    summary:
      "Compacted carries the enabled set and pending requests, so replay can start there; compaction never loses an enabled tool.",
  },
  D8: {
    title: "Clear",
    summary: "/clear empties the enabled set and pending requests; the registry is untouched.",
  },
  D9: {
    title: "Calls to deferred tools",
    summary:
      "Calling a deferred tool that is not enabled is refused, telling the model to enable it first.",
  },
  E1: { title: "Events", summary: "Events are versioned JSON objects declared as schemas." },
  E2: {
    title: "Reducer",
    summary:
      "The reducer is pure and total; an event it cannot apply is a decode error, never a silent skip.",
  },
  E3: {
    title: "State",
    summary:
      "State exposes extensions, tools, version, stale extensions, the enabled set, pending requests and diagnostics.",
  },
  E4: {
    title: "Decider",
    summary: "Decisions are made before events are appended; replay never re-validates.",
  },
  E5: {
    title: "Embeddable core",
    summary: "The core imports nothing from Node and runs in a browser unchanged.",
  },
  E6: {
    title: "Commands are input",
    summary: "Every command is validated at run time; whatever is emitted decodes.",
  },
  C1: {
    title: "Streams",
    summary:
      "Registry events are one stream per host; each conversation is its own stream, folded with the registry's in global order.",
  },
  C2: {
    title: "One conversation per client",
    summary:
      "Each downstream MCP session is one conversation; enabled sets never leak between them.",
  },
  C3: {
    title: "Lifecycle from outside",
    summary:
      "Clear and compaction can come from another process; ended sessions are closed and resumed ones marked.",
  },
  C4: {
    title: "Calls are events",
    summary:
      "Every tools/call is recorded: started, then finished with its outcome, duration and refusal reason.",
  },
  C5: {
    title: "Who",
    summary: "A conversation records its client, protocol version and transport when it starts.",
  },
  C6: {
    title: "Tasks are calls",
    summary:
      "A call that runs as a task records its task and every status change; its end finishes the call. A close cancels open tasks; a resume records those a dead gateway left open as lost.",
  },
  S1: {
    title: "Search over deferred tools",
    summary:
      "In search mode the model gets search_tools and enable_tools and a list of servers with counts; a search returns exact names of deferred tools only, ranked deterministically.",
  },
  S2: {
    title: "Searches are events",
    summary:
      "Every search records its query and the names it returned; replay runs it again and gets the same names.",
  },
  G1: {
    title: "Transparency",
    summary:
      "Whatever an upstream offers (prompts, resources, logging, progress…) reaches the client through the gateway.",
  },
  G2: {
    title: "Errors",
    summary:
      "Protocol errors where the MCP specification prescribes them; tool execution errors as isError results.",
  },
  G4: {
    title: "Tasks",
    summary:
      "Task-augmented calls, tasks/get|result|list|cancel and status notifications relayed per conversation under the gateway's own ids; the gateway runs a task itself where a server cannot.",
  },
  G3: {
    title: "Conformance",
    summary:
      "Every conformance scenario that passes against the upstream directly passes through the gateway.",
  },
  V3: {
    title: "Lists clients can read",
    summary:
      "Served lists come in pages of at most 8 MiB (nextCursor); a definition over the cap (1 MiB unless configured) is not served, and is said and recorded with its listing.",
  },
  P1: {
    title: "What is pinned",
    summary:
      "Per server: a SHA-256 digest of the canonical JSON of each tool (all but _meta, whose ui is kept), prompt, resource, template and the instructions.",
  },
  P2: {
    title: "Approved, changed, pending",
    summary:
      "The first listing is approved by first use unless a check fires; a later change or a new name awaits approval: the model keeps the approved definition (or none) and calls are refused.",
  },
  P3: {
    title: "Checks at first sight",
    summary:
      "Invisible, bidirectional and tag characters (decoded), cross-server shadowing, base64/hex payloads that decode to commands, instruction phrases (NFKC): each quarantines.",
  },
  P4: {
    title: "The pins ledger",
    summary:
      "One stream of pinning decisions per database, across runs and hosts; each host carries and mirrors it into its registry stream. A server that keeps changing is coalesced.",
  },
  P5: {
    title: "Policy",
    summary:
      "Per server: quarantine (default for serve), warn (recorded, served as listed) or off; a serve flag or the config file's pinning option.",
  },
  P6: {
    title: "Approve and reject",
    summary:
      "A person approves or rejects by the digest reviewed, from any process; a serving gateway folds it within a second and tells its clients.",
  },
  A1: {
    title: "OAuth flow",
    summary:
      "A remote server's 401 starts OAuth 2.1: discovery, a configured client else a metadata-document URL else dynamic registration, PKCE S256, resource, scopes; bounded step-up on 403.",
  },
  A2: {
    title: "Tokens",
    summary:
      "Tokens live in the user's store (0600, per server and issuer), are refreshed before expiry one process at a time, and go to their own issuer's server only.",
  },
  A3: {
    title: "No secret recorded",
    summary:
      "No token, code, verifier or client secret reaches an event, a log line, an error or an export.",
  },
  A4: {
    title: "Authorization in serve",
    summary:
      "A server needing authorization asks the user once; its tools join when it is done; calls meanwhile say to run `toolledger auth login`.",
  },
};
