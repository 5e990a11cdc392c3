// What describing an event produces and remembers: shared by describeEvent and the parts it
// composes (describeOtherEvent, describePinEvent, describeSearch, describeOrigin).

export type Severity = "info" | "ok" | "warn" | "error";

/** One event as the timeline shows it: who it concerns, one line of text, and the rules it follows. */
export interface EventDescription {
  /** Extension keys the event concerns (for the extension filter). */
  extensions: string[];
  text: string;
  severity: Severity;
  /** Rule ids (R9, D6, …), most specific first. */
  rules: string[];
}

/** What the timeline remembers between events, to relate one to another. */
export interface DescribeContext {
  /** The index and type of the event that moved the registry to each version (R11). */
  versionSource: Map<number, { index: number; type: string }>;
  /** Enable requests by call id: index and names (D6). */
  requests: Map<string, { index: number; names: readonly string[]; extensions: string[] }>;
  /** Calls by call id: index, name and owner (C4). */
  calls: Map<string, { index: number; name: string; extensions: string[] }>;
}

export function newDescribeContext(): DescribeContext {
  return { versionSource: new Map(), requests: new Map(), calls: new Map() };
}

/** A loosely typed event: the page renders kinds this build does not know yet, too. */
export type AnyEvent = { type: string } & Record<string, unknown>;
