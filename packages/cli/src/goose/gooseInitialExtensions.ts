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
}

/**
 * The extensions on at the session's start: its enabled-extensions snapshot, walked back
 * over the session's own enables and disables, plus owners whose tools ran but that neither
 * the snapshot nor an enable names.
 */
export function gooseInitialExtensions(
  session: GooseSession,
  calls: readonly GooseCall[],
): GooseInitialExtensions {
  const snapshot = enabledExtensions(session.extensionData);
  const managed = calls.filter((c) => c.manage && succeeded(c));
  const initial = new Map(snapshot.map((e) => [e.key, e]));
  const configs = new Map(snapshot.map((e) => [e.key, e]));
  for (const c of [...managed].reverse()) {
    const key = nameToKey(c.manage!.extension);
    if (c.manage!.action === "enable") initial.delete(key);
    else initial.set(key, configs.get(key) ?? unlistedGooseExtension(key));
  }
  const used = toolsUsed(calls);
  const managedKeys = new Set(managed.map((c) => nameToKey(c.manage!.extension)));
  for (const owner of used.keys()) {
    if (!initial.has(owner) && !managedKeys.has(owner))
      initial.set(owner, unlistedGooseExtension(owner));
  }
  return { initial, configs, used };
}

/** An extension the session used but whose config it does not hold. */
export function unlistedGooseExtension(key: string): GooseExtension {
  return unlistedExtension(key, GOOSE_PLATFORM_EXTENSIONS.has(key) ? "platform" : "unknown");
}
