import { getExtension, nameToKey, type State } from "@toolledger/core";
import { asAdapterError } from "../adapterError.js";
import type { ExtensionConfig } from "../extensionConfig.js";
import type { AddResult } from "./extensionStatus.js";
import type { ExtensionSupervisor } from "./extensionSupervisor.js";
import type { ExtensionLists } from "./lists/extensionLists.js";

/**
 * `addExtensions` after the ExtensionAdded events: the new supervisors' servers started in
 * parallel (failures returned, not thrown), each connection listed once, whatever went stale
 * refreshed, then each one ready or failed. `added` is null where a config changed nothing.
 */
export async function startAdded(
  configs: readonly ExtensionConfig[],
  added: readonly (ExtensionSupervisor | null)[],
  host: {
    lists: ExtensionLists;
    refresh: () => Promise<void>;
    /** Whether `s` is still the extension's supervisor. */
    current: (s: ExtensionSupervisor) => boolean;
    state: () => State;
  },
): Promise<AddResult[]> {
  const results = await Promise.all(
    configs.map(async (config, i): Promise<AddResult> => {
      const s = added[i];
      if (!s) return { name: config.name, key: nameToKey(config.name), ok: true };
      try {
        await s.startOnce();
        return { name: config.name, key: s.key, ok: true };
      } catch (error) {
        return { name: config.name, key: s.key, ok: false, error: asAdapterError(error) };
      }
    }),
  );
  // A resumed log may hold a fetch at the current version from an earlier run: a new
  // connection is listed regardless (one listing each, R11), then whatever went stale.
  const connected = added.filter((s, i): s is ExtensionSupervisor => !!s && results[i]!.ok);
  await Promise.all(connected.map((s) => host.lists.listNew(s, () => "")));
  await host.refresh();
  for (const s of connected) {
    if (!host.current(s) || s.connection === null) continue;
    const failed = getExtension(host.state(), s.key)?.fetch.status === "failed";
    s.enter(failed ? "failed" : "ready");
  }
  return results;
}
