import {
  type AppendResult,
  EventStoreError,
  type EventToAppend,
  type ExpectedVersion,
  InMemoryEventStore,
} from "@toolledger/core";

/**
 * The in-memory store with the failures of a real one, for tests: `down` makes appends to a
 * stream fail as an unreachable database's do, `ackLost` stores a batch and then fails as if
 * the answer were lost on the way, and `before` runs ahead of each append (another writer's
 * append, a slow commit), so a test can put anything between a decision and its record.
 */
export class FlakyStore extends InMemoryEventStore {
  readonly down = new Set<string>();
  readonly ackLost = new Set<string>();
  /** Every append attempted, in order: its stream and its events' types. */
  readonly appends: { streamId: string; types: string[] }[] = [];
  before: ((streamId: string, events: readonly EventToAppend[]) => Promise<void>) | null = null;

  override async append(
    streamId: string,
    events: readonly EventToAppend[],
    expected?: ExpectedVersion,
  ): Promise<AppendResult> {
    this.appends.push({ streamId, types: events.map((e) => e.event.type) });
    if (this.before) await this.before(streamId, events);
    if (this.down.has(streamId))
      throw new EventStoreError("STORE_UNAVAILABLE", "db.example:5432: connection refused");
    const result = await super.append(streamId, events, expected);
    if (result.ok && this.ackLost.delete(streamId))
      throw new EventStoreError("STORE_UNAVAILABLE", "db.example:5432: connection reset");
    return result;
  }
}
