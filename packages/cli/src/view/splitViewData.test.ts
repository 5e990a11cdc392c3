import { describe, expect, test } from "vitest";
import { HEAD_ENTRIES, splitViewData } from "./renderViewHtml.js";
import type { ViewData, ViewEntry } from "./viewData.js";

const data = (entries: ViewEntry[], tools: unknown[], streams: string[] = []): ViewData => ({
  format: 1,
  title: "t",
  source: "s",
  generatedAt: "2026-12-03T00:00:00.000Z",
  version: "test",
  entries,
  steps: entries.length,
  streams,
  tools,
  tokens: { tokenizer: "o200k_base", definition: "d", points: [] },
  rules: {},
});

describe("splitViewData: the head the page shows first, the rest after its script", () => {
  test("a long log: the head's tools are those its entries list; head and rest join to the data", () => {
    const tools = Array.from({ length: 30 }, (_, i) => ({ name: `t${i}` }));
    const entries: ViewEntry[] = Array.from({ length: HEAD_ENTRIES + 50 }, (_, i) =>
      i % 40 === 3
        ? {
            p: i + 1,
            e: { type: "ToolsFetched" },
            k: [Math.floor(i / 40) * 3, Math.floor(i / 40) * 3 + 1],
          }
        : { p: i + 1, e: { type: "ToolsInvalidated" } },
    );
    const d = data(entries, tools.slice(0, 21));
    const { head, rest } = splitViewData(d);
    expect(head.entries).toEqual(entries.slice(0, HEAD_ENTRIES));
    const listed = head.entries.flatMap((v) => v.k ?? []);
    expect(head.tools).toHaveLength(Math.max(...listed) + 1);
    expect([...head.entries, ...rest.entries]).toEqual(d.entries);
    expect([...head.tools, ...rest.tools]).toEqual(d.tools);
    expect(head.steps).toBe(d.steps);
  });

  test("C1: a conversation log whose head does not hold its ConversationStarted is not split", () => {
    const registry: ViewEntry[] = Array.from({ length: HEAD_ENTRIES + 10 }, (_, i) => ({
      p: i + 1,
      s: 1,
      sp: i + 1,
      e: { type: "ToolsInvalidated" },
    }));
    const started: ViewEntry = { p: 1, s: 0, sp: 1, e: { type: "ConversationStarted" } };
    const late = data([...registry, started], [], ["conv", "registry"]);
    expect(splitViewData(late).head).toBe(late);
    expect(splitViewData(late).rest.entries).toEqual([]);
    const early = data([started, ...registry], [], ["conv", "registry"]);
    expect(splitViewData(early).head.entries).toHaveLength(HEAD_ENTRIES);
  });

  test("a short log is not split", () => {
    const d = data([{ p: 1, e: { type: "ToolsInvalidated" } }], []);
    expect(splitViewData(d).head).toBe(d);
  });
});
