import { type EventStore, evolve, type State, type ToolledgerEvent } from "@toolledger/core";

/** A stream's whole history, folded over `seed`: its state, its version and its events. */
export async function loadStream(
  store: EventStore,
  streamId: string,
  seed: State,
): Promise<{ state: State; version: number; events: ToolledgerEvent[] }> {
  let state = seed;
  let version = 0;
  const events: ToolledgerEvent[] = [];
  for (;;) {
    const batch = await store.readStream(streamId, { fromPosition: version + 1, maxCount: 1000 });
    for (const stored of batch) {
      state = evolve(state, stored.event);
      events.push(stored.event);
    }
    version += batch.length;
    if (batch.length < 1000) return { state, version, events };
  }
}
