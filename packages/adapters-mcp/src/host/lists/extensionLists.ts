import type { Command } from "@toolledger/core";
import type { AdapterError } from "../../adapterError.js";
import type { StreamWriter } from "../../ledger/streamWriter.js";
import type { ResolvedHostOptions } from "../hostOptions.js";
import type { SupervisedExtension } from "../supervisedExtension.js";
import { type CatalogList, declaredLists, recordCatalogList } from "./recordCatalog.js";
import { RefetchScheduler } from "./refetchScheduler.js";
import {
  invalidateTools,
  listUntilCurrent,
  type ToolsRefetchContext,
  toolsKey,
} from "./toolsRefetch.js";

/** The longest a refetch waits for a burst of list_changed to end. */
const REFETCH_MAX_WAIT_MS = 1_000;

/**
 * R11/G1: the extensions' lists (tools, prompts, resources) as a host records them: listed
 * when a server connects, invalidated and listed again when it says they changed, each list
 * through one refetch run at a time (RefetchScheduler).
 */
export class ExtensionLists {
  readonly #writer: StreamWriter;
  readonly #options: ResolvedHostOptions;
  readonly #refetch: RefetchScheduler;
  readonly #tools: ToolsRefetchContext;
  readonly #track: (work: Promise<unknown>) => void;
  readonly #beforeRecord: (command: Command) => Promise<void>;

  constructor(
    writer: StreamWriter,
    options: ResolvedHostOptions,
    host: {
      closed: () => boolean;
      track: (work: Promise<unknown>) => void;
      report: (error: unknown) => void;
      /** P2: decides a listing against the pins ledger before it is recorded. */
      beforeRecord: (command: Command) => Promise<void>;
    },
  ) {
    this.#writer = writer;
    this.#options = options;
    this.#track = host.track;
    this.#beforeRecord = host.beforeRecord;
    this.#refetch = new RefetchScheduler({
      debounceMs: options.refetchDebounceMs,
      maxWaitMs: Math.max(REFETCH_MAX_WAIT_MS, options.refetchDebounceMs),
      onError: host.report,
    });
    this.#tools = {
      writer,
      limits: options,
      closed: host.closed,
      track: host.track,
      beforeRecord: host.beforeRecord,
    };
  }

  /** A new connection: its tools (regardless of the registry) and its other lists; returns the tools listing's failure. */
  async listNew(
    s: SupervisedExtension,
    note: (e: AdapterError) => string,
  ): Promise<AdapterError | null> {
    const [failure] = await Promise.all([this.listTools(s, true, note), this.#listCatalog(s)]);
    return failure;
  }

  /**
   * R11: lists an extension's tools until its recorded list is current, through the one
   * refetch run of its key (joining one in flight); returns the last failure, if any.
   * `force`: list it even when the registry holds a current list.
   */
  async listTools(
    s: SupervisedExtension,
    force: boolean,
    note?: (e: AdapterError) => string,
  ): Promise<AdapterError | null> {
    let failure: AdapterError | null = null;
    await this.#refetch.run(toolsKey(s.key), async (quiet) => {
      failure = await listUntilCurrent(this.#tools, s, force, note, quiet);
    });
    return failure;
  }

  /** R11: the server said tools/list_changed: invalidated now, listed when the burst ends. */
  toolsChanged(s: SupervisedExtension): void {
    invalidateTools(this.#tools, s);
    this.#refetch.changed(toolsKey(s.key), async (quiet) => {
      await listUntilCurrent(this.#tools, s, false, undefined, quiet);
    });
  }

  /** G1: a prompt or resource list change invalidates that list now; the refetch waits for the burst to end. */
  catalogChanged(s: SupervisedExtension, list: CatalogList): void {
    const type = list === "prompts" ? "InvalidatePrompts" : "InvalidateResources";
    this.#track(this.#writer.execute(() => ({ type, extension: s.key })));
    const generation = s.generation;
    const connection = s.connection;
    this.#refetch.changed(`${list}\u0000${s.key}`, async (quiet) => {
      await quiet();
      if (connection && s.current(generation) && !connection.closed)
        await recordCatalogList(
          this.#writer,
          connection,
          s.key,
          list,
          this.#options,
          () => s.current(generation),
          this.#beforeRecord,
        );
    });
  }

  /** True while a refetch is in flight or waiting for a burst to end. */
  get busy(): boolean {
    return this.#refetch.busy;
  }

  /** Resolves once no refetch is in flight or waiting. */
  settled(): Promise<void> {
    return this.#refetch.settled();
  }

  /** No new refetches (the host is closing). */
  close(): void {
    this.#refetch.close();
  }

  /** G1: its prompts and resources (those its server declared), each until current. */
  async #listCatalog(s: SupervisedExtension): Promise<void> {
    const connection = s.connection;
    if (!connection) return;
    const generation = s.generation;
    await Promise.all(
      declaredLists(connection).map((list) =>
        recordCatalogList(
          this.#writer,
          connection,
          s.key,
          list,
          this.#options,
          () => s.current(generation),
          this.#beforeRecord,
        ),
      ),
    );
  }
}
