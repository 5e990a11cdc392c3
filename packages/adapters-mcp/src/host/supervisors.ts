import { nameToKey, type State, staleExtensions } from "@toolledger/core";
import { AdapterError } from "../adapterError.js";
import type { ExtensionConnection } from "../connection/extensionConnection.js";
import type { ExtensionConfig } from "../extensionConfig.js";
import type { StreamWriter } from "../ledger/streamWriter.js";
import { addExtensionCommand } from "./addExtensionCommand.js";
import type { ExtensionStatus } from "./extensionStatus.js";
import { ExtensionSupervisor } from "./extensionSupervisor.js";
import type { HostPins } from "./pins/hostPins.js";
import { recordUnfinishedStart } from "./recordUnfinishedStart.js";
import { untilListed, untilStartedFor } from "./startupWaits.js";
import type { SupervisorHost } from "./supervisorHost.js";

/**
 * A host's extensions (C1), one supervisor each, by key: added (R6), replaced and removed;
 * their statuses and connections; the waits for their first starts.
 */
export class Supervisors {
  readonly #byKey = new Map<string, ExtensionSupervisor>();
  readonly #writer: StreamWriter;
  /** What each supervisor tells its host. */
  readonly #host: SupervisorHost;
  readonly #pins: HostPins;

  constructor(writer: StreamWriter, host: SupervisorHost, pins: HostPins) {
    this.#writer = writer;
    this.#host = host;
    this.#pins = pins;
  }

  /**
   * R6: appends each config's ExtensionAdded and gives it a new supervisor, retiring the one
   * it replaces; null where an identical config is already connected (a no-op).
   */
  async add(configs: readonly ExtensionConfig[]): Promise<(ExtensionSupervisor | null)[]> {
    const added: (ExtensionSupervisor | null)[] = [];
    for (const config of configs) {
      const key = nameToKey(config.name);
      const previous = this.#byKey.get(key);
      const events = await this.#writer.execute(() => addExtensionCommand(config));
      if (events.length === 0 && previous?.connection) {
        added.push(null);
        continue;
      }
      if (previous) await previous.retire(true);
      const s = new ExtensionSupervisor(this.#host, key, config);
      this.#byKey.set(key, s);
      await this.#pins.adopt(key, config);
      added.push(s);
    }
    return added;
  }

  /** Whether `s` is still its extension's supervisor. */
  current(s: ExtensionSupervisor): boolean {
    return this.#byKey.get(s.key) === s;
  }

  /** R7: the extension's supervisor leaves, its connection closed for good. */
  async remove(key: string): Promise<void> {
    const s = this.#byKey.get(key);
    this.#byKey.delete(key);
    if (s) await s.retire(true);
  }

  /** The supervisor of the extension `name`; COMMAND_REJECTED, naming those known, if none. */
  named(name: string): ExtensionSupervisor {
    const s = this.#byKey.get(nameToKey(name));
    if (!s) {
      throw new AdapterError(
        "COMMAND_REJECTED",
        `no extension ${JSON.stringify(name)} in this host; known: ${[...this.#byKey.keys()].join(", ") || "none"}`,
      );
    }
    return s;
  }

  get(key: string): ExtensionSupervisor | undefined {
    return this.#byKey.get(key);
  }

  statuses(): ExtensionStatus[] {
    return [...this.#byKey.values()].map((s) => s.status);
  }

  /** The live connection of an extension (name or key). */
  connection(nameOrKey: string): ExtensionConnection | undefined {
    return this.#byKey.get(nameToKey(nameOrKey))?.connection ?? undefined;
  }

  /** R11: the connected extensions whose recorded tools are stale in `state`. */
  staleConnected(state: State): ExtensionSupervisor[] {
    return staleExtensions(state).flatMap((key) => {
      const s = this.#byKey.get(key);
      return s?.connection ? [s] : [];
    });
  }

  /** See ToolledgerHost.untilListed. */
  untilListed(): Promise<void> {
    return untilListed(this.#byKey.values());
  }

  /** Resolves once every extension started in the background is past its first attempt. */
  async whenStarted(): Promise<void> {
    await Promise.all([...this.#byKey.values()].map((s) => s.startup.firstAttempt));
  }

  /** True while an extension started in the background is in its first start. */
  get starting(): boolean {
    for (const s of this.#byKey.values()) if (!s.startup.firstAttemptOver) return true;
    return false;
  }

  /** See ToolledgerHost.untilStartedFor. */
  untilStartedFor(state: State, names: readonly string[], ms: number): Promise<void> {
    return untilStartedFor(state, this.#byKey.values(), names, ms);
  }

  /** Issue 20.4: records each server still starting (see recordUnfinishedStart). */
  async recordUnfinishedStarts(): Promise<void> {
    await Promise.all([...this.#byKey.values()].map((s) => recordUnfinishedStart(this.#writer, s)));
  }

  /** Closes every connection on purpose and stops every attempt (the host is closing). */
  async retireAll(): Promise<void> {
    await Promise.allSettled([...this.#byKey.values()].map((s) => s.retire()));
  }
}
