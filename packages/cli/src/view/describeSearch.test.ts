import { initialState, type ToolledgerEvent } from "@toolledger/core";
import { describe, expect, test } from "vitest";
import { SessionTimeline } from "./sessionTimeline.js";

const v = 1 as const;

describe("the view shows each search and what it returned (S2)", () => {
  test("a search: its query, its names, its call; a refused one with its error", () => {
    const events: ToolledgerEvent[] = [
      {
        type: "ToolCallStarted",
        v,
        callId: "s1",
        name: "search_tools",
        publicName: "search_tools",
        owner: null,
        rawName: null,
      },
      {
        type: "ToolsSearched",
        v,
        callId: "s1",
        query: "report a bug",
        limit: 5,
        kind: "words",
        results: ["github__create_issue", "gitlab__create_issue"],
      },
      {
        type: "ToolsSearched",
        v,
        callId: "s2",
        query: "/(/",
        limit: 5,
        kind: "words",
        results: [],
        error: { code: "INVALID_REGEX", message: '/(/: a "(" is never closed' },
      },
    ];
    const timeline = new SessionTimeline();
    timeline.append(
      events.map((event, i) => ({ entry: { position: i + 1, event }, state: initialState() })),
    );
    const [, found, refused] = timeline.rows;
    expect(found).toMatchObject({
      text: 'search "report a bug" → github__create_issue, gitlab__create_issue',
      severity: "info",
      rules: ["S2", "S1"],
      related: 0,
      extensions: ["github", "gitlab"],
    });
    expect(refused).toMatchObject({
      text: 'search "/(/" refused: /(/: a "(" is never closed',
      severity: "warn",
    });
  });
});
