import { hostname, userInfo } from "node:os";
import {
  type Command,
  decide,
  type EventStore,
  type ExtensionPins,
  evolve,
  initialState,
  nameToKey,
  PINS_LEDGER_STREAM,
  type PinKind,
  type PinRecord,
  readWholeStream,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import { CliError } from "../program/cliError.js";
import type { Deps } from "../program/deps.js";
import { newEventId } from "../session/newIds.js";

/** The pins ledger (P4) folded, and its version. */
export async function loadLedger(store: EventStore): Promise<{ state: State; version: number }> {
  const events = await readWholeStream(store, PINS_LEDGER_STREAM);
  let state = initialState();
  for (const e of events) state = evolve(state, e.event);
  return { state, version: events.length };
}

/** The pins of one server (name or key), or a not-found error naming the pinned ones. */
export function serverPins(state: State, server: string): { key: string; pins: ExtensionPins } {
  const key = nameToKey(server);
  const pins = Object.hasOwn(state.pinning, key) ? state.pinning[key] : undefined;
  if (!pins) {
    const known = Object.keys(state.pinning).sort();
    throw new CliError("notFound", `nothing of server ${JSON.stringify(server)} is pinned`, {
      hint:
        known.length > 0
          ? `pinned servers: ${known.join(", ")} (\`toolledger pins\` lists them)`
          : "nothing is pinned yet: `toolledger serve` pins each server's definitions when it first lists them",
    });
  }
  return { key, pins };
}

/**
 * The record a name means within a server: its exact name (a tool's raw name, a prompt's
 * name, a resource's URI), the tool's public name `<server>__<name>`, or `instructions`;
 * `kind` narrows it when two kinds share a name.
 */
export function findRecord(
  key: string,
  pins: ExtensionPins,
  name: string,
  kind?: PinKind,
): PinRecord {
  const records = Object.values(pins.records).filter((r) => kind === undefined || r.kind === kind);
  const prefix = `${key}__`;
  const matches = records.filter(
    (r) =>
      r.name === name ||
      (name.startsWith(prefix) && r.name === name.slice(prefix.length)) ||
      (r.kind === "instructions" && name === "instructions"),
  );
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new CliError(
      "usage",
      `${JSON.stringify(name)} names ${matches.length} definitions of ${key} (${matches.map((m) => m.kind).join(", ")})`,
      { hint: "add --kind tool|prompt|resource|resource_template|instructions" },
    );
  }
  const close = records
    .map((r) => r.name)
    .filter((n) => n.includes(name.replace(prefix, "")) || name.includes(n))
    .slice(0, 5);
  throw new CliError("notFound", `no pinned definition ${JSON.stringify(name)} of server ${key}`, {
    hint:
      close.length > 0
        ? `did you mean ${close.join(", ")}?`
        : `\`toolledger pins ${key}\` lists them`,
  });
}

/** Who approves or rejects: `--by`, else the user and machine (`ana@laptop`). */
export function reviewer(by: string | undefined, deps: Deps): string {
  if (by !== undefined && by.trim() !== "") return by.trim();
  let user = deps.env.USER ?? deps.env.LOGNAME ?? "";
  if (user === "") {
    try {
      user = userInfo().username;
    } catch {
      user = "unknown";
    }
  }
  return `${user}@${hostname()}`;
}

/** How many times a decision is made again when a serving gateway appended in between. */
const RETRIES = 10;

/**
 * P6: appends a person's decision to the pins ledger, decided against the ledger as it is
 * and appended with the exact expected version; a gateway that appended in between makes it
 * read and decide again. Serving gateways fold it within their follow interval.
 */
export async function appendToLedger(
  store: EventStore,
  make: (state: State) => Command,
  now: () => Date,
): Promise<{ events: ToolledgerEvent[]; before: State; version: number }> {
  for (let attempt = 0; ; attempt++) {
    const { state, version } = await loadLedger(store);
    const command = make(state);
    const decision = decide(state, { ...command, at: now().toISOString() } as Command);
    if (!decision.ok) throw new CliError("conflict", decision.error.message);
    const result = await store.append(
      PINS_LEDGER_STREAM,
      decision.events.map((event) => ({ eventId: newEventId(), event })),
      version,
    );
    if (result.ok)
      return { events: decision.events, before: state, version: result.nextExpectedVersion };
    if (result.error.code !== "VERSION_CONFLICT" || attempt >= RETRIES) {
      throw new CliError(
        "conflict",
        `could not record the decision in the pins ledger: ${result.error.code}${"message" in result.error ? `: ${result.error.message}` : ""}`,
        { hint: "a gateway is appending to it; try again" },
      );
    }
  }
}
