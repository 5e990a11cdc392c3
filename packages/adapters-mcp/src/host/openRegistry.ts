import { InMemoryEventStore, initialState, REGISTRY_EVENT_TYPES } from "@toolledger/core";
import { AdapterError } from "../adapterError.js";
import { StreamWriter } from "../ledger/streamWriter.js";
import type { Redactor } from "../redaction/redactor.js";
import type { HostOptions } from "./hostOptions.js";
import { newRegistryStreamId } from "./registryStreamId.js";

/**
 * C1: opens a host's registry stream on `options.store` (a new one, or `registryStreamId`
 * resumed; a legacy single-stream session is refused: it holds a conversation too), makes
 * the host with `make` and records the run with HostStarted. The writer redacts with the
 * host's redactor (R6).
 */
export async function openRegistry<
  H extends { readonly redactor: Redactor; readonly hostname: string },
>(options: HostOptions, make: (writer: StreamWriter) => H): Promise<H> {
  const store = options.store ?? new InMemoryEventStore();
  const now = options.now ?? (() => new Date());
  const streamId = options.registryStreamId ?? newRegistryStreamId(now());
  const loaded = await StreamWriter.load(store, streamId, initialState(options.state));
  const foreign = loaded.events.find((e) => !REGISTRY_EVENT_TYPES.has(e.type));
  if (foreign) {
    throw new AdapterError(
      "COMMAND_REJECTED",
      `stream ${streamId} is not a registry stream (it holds ${foreign.type}); give a new or a host-… stream id`,
    );
  }
  let host: H | null = null;
  const writer = new StreamWriter(store, streamId, loaded.state, loaded.version, {
    now,
    redactor: () => host!.redactor,
    // L2: conversations decide against this stream; none of their records lands across its appends.
    gate: "exclusive",
  });
  host = make(writer);
  await writer.execute(() => ({
    type: "StartHost",
    hostname: host.hostname,
    pid: process.pid,
    ...(options.toolledgerVersion ? { toolledgerVersion: options.toolledgerVersion } : {}),
  }));
  return host;
}
