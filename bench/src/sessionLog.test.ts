import {
  decodeEvent,
  evolve,
  initialState,
  listTools,
  replay,
  replayFromLatestCompaction,
} from "@toolledger/core";
import { describe, expect, it } from "vitest";
import { registryEvents, sessionLog, sessionLogOptions } from "./sessionLog.js";

describe("sessionLog", () => {
  const options = sessionLogOptions(5_000, { extensions: 6, toolsPerExtension: 7 });
  const events = [...sessionLog(options)];

  it("yields exactly the number of events asked for, with the planned mix", () => {
    expect(events).toHaveLength(5_000);
    const count = (type: string) => events.filter((e) => e.type === type).length;
    expect(count("DeferralConfigured")).toBe(1);
    expect(count("EnableToolsRequested")).toBe(options.enablePairs);
    expect(count("EnableToolsResponded")).toBe(options.enablePairs);
    expect(count("Compacted")).toBe(options.compactions);
    expect(count("Cleared")).toBe(options.clears);
    expect(count("ExtensionRemoved")).toBe(options.replacements);
    expect(count("ExtensionAdded")).toBe(options.extensions + options.replacements);
    expect(count("ToolsFetchFailed")).toBe(options.failedFetches);
    expect(count("ToolsFetched")).toBe(
      options.extensions + options.fetches + options.staleFetches + options.replacements,
    );
  });

  it("is deterministic", () => {
    expect(JSON.stringify([...sessionLog(options)])).toBe(JSON.stringify(events));
  });

  it("decodes every event and folds to a registry with tools and enabled names", () => {
    for (const e of events) expect(decodeEvent(JSON.parse(JSON.stringify(e))).ok).toBe(true);
    const state = replay(events);
    expect(listTools(state).length).toBeGreaterThan(0);
    expect(state.enabled.length).toBeGreaterThan(0);
    expect(replayFromLatestCompaction(events)).toEqual(state);
  });

  it("records stale fetches that change nothing (R11)", () => {
    const stale = events.filter(
      (e, i) => e.type === "ToolsFetched" && i > 0 && events[i - 1]!.type === "ToolsInvalidated",
    );
    expect(stale.length).toBeGreaterThanOrEqual(options.staleFetches);
  });
});

describe("registryEvents", () => {
  it("builds extensions × tools registered tools", () => {
    let state = initialState();
    for (const e of registryEvents(4, 9)) state = evolve(state, e);
    expect(listTools(state)).toHaveLength(36);
  });
});
