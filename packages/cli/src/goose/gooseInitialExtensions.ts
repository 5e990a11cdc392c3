import { nameToKey } from "@toolledger/core";
import { enabledExtensions, type GooseExtension, unlistedExtension } from "./gooseExtensions.js";
import type { GooseSession } from "./gooseSession.js";
import { GOOSE_PLATFORM_EXTENSIONS } from "./gooseToolName.js";
import { type GooseCall, succeeded, toolsUsed } from "./scanGooseSession.js";

export interface GooseInitialExtensions {
  /** The extensions on at the session's start, by key. */
  initial: Map<string, GooseExtension>;
  /** The configs the session's enabled-extensions snapshot holds, by key. */
  configs: Map<string, GooseExtension>;
  /** The raw tool names the session called, by owner. */
  used: Map<string, Set<string>>;
  /** An extension the session used but whose config it does not hold, named as its calls were. */
  unlisted: (key: string) => GooseExtension;
}

/**
 * The extensions on at the session's start: its enabled-extensions snapshot, walked back
 * over the session's own enables and disables, plus owners whose tools ran but that neither
 * the snapshot nor an enable names. Each is registered as goose served it (R3): unprefixed
 * when the session called its tools unprefixed, prefixed when it called them prefixed, else
 * as goose's version of today names it.
 */
export function gooseInitialExtensions(
  session: GooseSession,
  calls: readonly GooseCall[],
): GooseInitialExtensions {
  const naming = callNaming(calls);
  const named = (e: GooseExtension): GooseExtension => {
    const unprefixed = naming.get(e.key);
    return unprefixed === undefined || unprefixed === e.exposeUnprefixed
      ? e
      : { ...e, exposeUnprefixed: unprefixed };
  };
  const unlisted = (key: string) => named(unlistedGooseExtension(key));
  const snapshot = enabledExtensions(session.extensionData).map(named);
  const managed = calls.filter((c) => c.manage && succeeded(c));
  const initial = new Map(snapshot.map((e) => [e.key, e]));
  const configs = new Map(snapshot.map((e) => [e.key, e]));
  for (const c of [...managed].reverse()) {
    const key = nameToKey(c.manage!.extension);
    if (c.manage!.action === "enable") initial.delete(key);
    else initial.set(key, configs.get(key) ?? unlisted(key));
  }
  const used = toolsUsed(calls);
  const managedKeys = new Set(managed.map((c) => nameToKey(c.manage!.extension)));
  for (const owner of used.keys()) {
    if (!initial.has(owner) && !managedKeys.has(owner)) initial.set(owner, unlisted(owner));
  }
  return { initial, configs, used, unlisted };
}

/** An extension the session used but whose config it does not hold. */
export function unlistedGooseExtension(key: string): GooseExtension {
  return unlistedExtension(key, GOOSE_PLATFORM_EXTENSIONS.has(key) ? "platform" : "unknown");
}

/**
 * How the session named each owner's tools: true when every call was unprefixed (`shell`,
 * owned through `_meta.goose_extension`), false when every one was `<owner>__<tool>`; owners
 * named both ways (a session resumed across a goose upgrade) are left out.
 */
function callNaming(calls: readonly GooseCall[]): Map<string, boolean> {
  const seen = new Map<string, Set<boolean>>();
  for (const c of calls) {
    if (!c.call.ok || c.owner === null) continue;
    const set = seen.get(c.owner) ?? new Set<boolean>();
    set.add(c.name === c.tool);
    seen.set(c.owner, set);
  }
  const out = new Map<string, boolean>();
  for (const [owner, ways] of seen) if (ways.size === 1) out.set(owner, [...ways][0]!);
  return out;
}
