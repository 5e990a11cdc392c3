import type { Command, PinPolicy, State, ToolledgerEvent } from "@toolledger/core";
import type { AdapterError } from "../../adapterError.js";
import type { ExtensionConnection } from "../../connection/extensionConnection.js";
import type { ExtensionConfig } from "../../extensionConfig.js";
import type { StreamWriter } from "../../ledger/streamWriter.js";
import type { Redactor } from "../../redaction/redactor.js";
import { PinKeeper } from "./pinKeeper.js";

/** What pinning needs of its host. */
export interface HostPinsParts {
  writer: StreamWriter;
  /** P5: the policy of servers whose config sets none; undefined: those are not pinned. */
  policy: PinPolicy | undefined;
  followIntervalMs: number;
  now: () => Date;
  redactor: () => Redactor;
  report: (error: AdapterError) => void;
}

/**
 * P4: a host's hooks into pinning. The pins ledger is opened when the first server is
 * pinned; each listing of a pinned server (tools, prompts, resources, instructions) is
 * decided against it before the listing is recorded, so no unapproved definition is served.
 */
export class HostPins {
  readonly #parts: HostPinsParts;
  #keeper: Promise<PinKeeper> | null = null;

  constructor(parts: HostPinsParts) {
    this.#parts = parts;
  }

  /** The pins ledger this host follows (null until a server is pinned). */
  keeper(): Promise<PinKeeper> | null {
    return this.#keeper;
  }

  /** P5: records a server's pinning policy when pinning is asked for at all; opens the ledger. */
  async adopt(key: string, config: ExtensionConfig): Promise<void> {
    const policy = config.pinning ?? this.#parts.policy;
    if (policy === undefined) return;
    const { writer } = this.#parts;
    const execute = (make: (state: State) => Command): Promise<ToolledgerEvent[]> =>
      writer.execute(make);
    if (policy !== "off")
      this.#keeper ??= PinKeeper.open({
        store: writer.store,
        state: () => writer.state,
        execute,
        now: this.#parts.now,
        redactor: this.#parts.redactor,
        report: this.#parts.report,
        followIntervalMs: this.#parts.followIntervalMs,
      });
    const keeper = await this.#keeper;
    if (keeper) await keeper.adopt(key, policy);
    else await execute(() => ({ type: "SetPinPolicy", extension: key, policy }));
  }

  /** P2: a listing command about to be recorded is decided against the ledger first. */
  async beforeRecord(command: Command): Promise<void> {
    const keeper = this.#keeper ? await this.#keeper : null;
    if (!keeper) return;
    if (command.type === "RecordFetch")
      await keeper.pin(command.extension, "tools", { tools: command.tools });
    else if (command.type === "RecordPrompts" && command.error === undefined)
      await keeper.pin(command.extension, "prompts", { prompts: command.prompts });
    else if (command.type === "RecordResources" && command.error === undefined)
      await keeper.pin(command.extension, "resources", {
        resources: command.resources,
        resourceTemplates: command.resourceTemplates,
      });
  }

  /** P2: a server's `instructions`, pinned when it connects. */
  async connected(key: string, connection: ExtensionConnection | null): Promise<void> {
    const keeper = this.#keeper ? await this.#keeper : null;
    if (keeper && connection)
      await keeper.pin(key, "instructions", { instructions: connection.instructions });
  }

  async close(): Promise<void> {
    await (await this.#keeper?.catch(() => null))?.close();
  }
}
