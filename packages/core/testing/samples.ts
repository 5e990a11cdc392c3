import type { EventToAppend, ToolledgerEventInput } from "@toolledger/core";

/** A valid event whose content depends on `seed`, so two seeds make different content. */
export function sampleEvent(seed: string | number): ToolledgerEventInput {
  return {
    type: "EnableToolsRequested",
    v: 1,
    callId: `call-${seed}`,
    names: [`ext__tool_${seed}`],
  };
}

/** A batch of `n` valid events with ids `${prefix}-0`, `${prefix}-1`, … */
export function sampleBatch(prefix: string, n: number): EventToAppend[] {
  return Array.from({ length: n }, (_, i) => ({
    eventId: `${prefix}-${i}`,
    event: sampleEvent(`${prefix}-${i}`),
  }));
}
