import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { classifyTool } from "../deferral/classifyTool.js";
import type { McpTool, ToolledgerEvent } from "../events/events.js";
import { replay } from "../fold/replay.js";
import type { RegisteredTool, State } from "../fold/state.js";
import { compareBytes } from "../naming/compareBytes.js";
import { isWinner } from "../naming/nameOwners.js";
import { explainSearchResult } from "./explainSearchResult.js";
import { queryConcepts } from "./rankTools.js";
import { registryIndex } from "./registryIndex.js";
import { MAX_SEARCH_LIMIT, searchTools } from "./searchTools.js";

// S1: the search's ranking is BM25F over the registry index, a concept counting once per tool
// with its best term, ties to the byte-wise smaller name, only searchable tools returned. The
// search computes it with flattened postings, reused scratch and a bounded top list; this is
// the same ranking written the plain way (every scored tool in a Map, sorted at the end), and
// the search must return exactly its names, on the catalogs and queries of bench 13f/13g and
// on a registry of many ties like bench 13d's.

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "../../../../bench/fixtures");
const v = 1 as const;

function referenceSearch(state: State, query: string, limit: number): string[] {
  const index = registryIndex(state);
  const n = index.size;
  const scores = new Map<RegisteredTool, number>();
  for (const concept of queryConcepts(query)) {
    const best = new Map<RegisteredTool, number>();
    for (const { term, weight } of concept.terms) {
      let df = 0;
      for (const s of index.servers) df += s.index.postings.get(term)?.docs.length ?? 0;
      if (df === 0) continue;
      const idf = weight * Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const s of index.servers) {
        const p = s.index.postings.get(term);
        if (!p) continue;
        for (let i = 0; i < p.docs.length; i++) {
          const tool = s.index.tools[p.docs[i]!]!;
          const value = idf * p.tf[i]!;
          if (value > (best.get(tool) ?? 0)) best.set(tool, value);
        }
      }
    }
    for (const [tool, value] of best) scores.set(tool, (scores.get(tool) ?? 0) + value);
  }
  return [...scores]
    .filter(([tool]) => isWinner(state, tool) && classifyTool(state, tool).class === "deferred")
    .sort((a, b) => b[1] - a[1] || compareBytes(a[0].wireName, b[0].wireName))
    .slice(0, limit)
    .map(([tool]) => tool.wireName);
}

function searched(state: State, query: string, limit: number): string[] {
  const r = searchTools(state, query, { limit });
  if (!r.ok) throw new Error(`${query}: ${r.error.message}`);
  expect(r.kind).toBe("words");
  return r.hits.map((h) => h.name);
}

interface Server {
  key: string;
  tools: McpTool[];
  exposeUnprefixed?: boolean;
  hidden?: boolean;
}

/** A registry in search mode: each server added, then each fetched. */
function searchRegistry(servers: Server[], alwaysLoad: string[] = []): State {
  const events: ToolledgerEvent[] = [{ type: "DeferralConfigured", v, mode: "search", alwaysLoad }];
  for (const s of servers)
    events.push({
      type: "ExtensionAdded",
      v,
      name: s.key,
      kind: "stdio",
      exposeUnprefixed: s.exposeUnprefixed ?? false,
      hidden: s.hidden ?? false,
      availableTools: [],
      configFingerprint: s.key,
    });
  for (const s of servers)
    events.push({
      type: "ToolsFetched",
      v,
      extension: s.key,
      startedAtVersion: servers.length,
      tools: s.tools,
    });
  return replay(events);
}

/** Bench 13f/g's registry: every real server's catalog, fetched, in search mode. */
function catalogState(): State {
  const { servers } = JSON.parse(readFileSync(join(fixtures, "toolCatalogs.json"), "utf8")) as {
    servers: { key: string; tools: McpTool[] }[];
  };
  return searchRegistry(servers);
}

const VERBS = [
  "create",
  "list",
  "get",
  "update",
  "delete",
  "search",
  "read",
  "write",
  "run",
  "sync",
];
const NOUNS = ["issue", "file", "branch", "comment", "record"];

/**
 * A registry like bench 13d's (the same verbs and nouns in every server, so thousands of
 * exact ties), with keys whose order differs from their wire names' (`s1` < `s10` but
 * `s10__x` < `s1__x`), app-only tools, a hidden extension, two extensions exposing the
 * same unprefixed name (R10) and an always-loaded tool.
 */
function tiesState(): State {
  const keys = Array.from({ length: 30 }, (_, i) => `s${i}`);
  const servers = keys.map((key): Server => {
    const tools: McpTool[] = [];
    for (let i = 0; i < 50; i++) {
      const verb = VERBS[i % VERBS.length]!;
      const noun = NOUNS[Math.floor(i / VERBS.length)]!;
      tools.push({
        name: `${verb}_${noun}`,
        description: `${verb} a ${noun} in service ${key}. Returns the ${noun} as JSON.`,
        inputSchema: {
          type: "object",
          properties: {
            path: { type: "string", description: "Path of the file." },
            ...(i % 3 === 0 ? { query: { type: "string", description: "Free-text query." } } : {}),
          },
        },
        ...(i % 25 === 24 ? { _meta: { ui: { visibility: ["app"] } } } : {}),
      });
    }
    return { key, tools, exposeUnprefixed: key === "s4" || key === "s5", hidden: key === "s7" };
  });
  return searchRegistry(servers, ["s3__create_issue"]);
}

describe("searchTools ranks exactly as the plain BM25F (S1)", () => {
  const { queries } = JSON.parse(readFileSync(join(fixtures, "searchQueries.json"), "utf8")) as {
    queries: { query: string }[];
  };

  it("S1: bench 13f/13g's queries on the real catalogs give the plain ranking's names", () => {
    const state = catalogState();
    expect(queries.length).toBeGreaterThan(100);
    let found = 0;
    for (const { query } of queries)
      for (const limit of [1, 5, MAX_SEARCH_LIMIT]) {
        const expected = referenceSearch(state, query, limit);
        found += expected.length;
        expect(searched(state, query, limit), `${query} (limit ${limit})`).toEqual(expected);
      }
    // Every query finds something: the comparison is not between two empty lists.
    expect(found).toBeGreaterThan(queries.length * 25);
  });

  it("S1: on a registry of exact ties, hidden, app-only, eager and colliding tools too", () => {
    const state = tiesState();
    const words = [
      "create an issue",
      "delete a branch",
      "sync tasks",
      "search records with a query",
      "write a file and overwrite it",
      "list comments with a limit",
      "read the file at a path",
    ];
    let nonEmpty = 0;
    for (const query of words)
      for (const limit of [1, 5, MAX_SEARCH_LIMIT]) {
        const expected = referenceSearch(state, query, limit);
        if (expected.length > 0) nonEmpty++;
        expect(searched(state, query, limit), `${query} (limit ${limit})`).toEqual(expected);
      }
    expect(nonEmpty).toBe(words.length * 3);
  });

  it("S1/R14: ties between non-ASCII public names are broken by their wire names, byte-wise", () => {
    const state = searchRegistry(
      ["b", "a", "a1"].map((key) => ({
        key,
        tools: ["p\u{1F600}", "p\uE000", "pz", "p\u00E9", "p"].map((name) => ({
          name,
          description: "Ping the server",
          inputSchema: { type: "object" },
        })),
      })),
    );
    for (const limit of [1, 2, 5, 7, MAX_SEARCH_LIMIT]) {
      const expected = referenceSearch(state, "ping the server", limit);
      expect(expected.length).toBe(Math.min(limit, 15));
      expect(searched(state, "ping the server", limit)).toEqual(expected);
    }
  });

  it("S1/S2: searches on different registries in turn leave nothing behind for the next", () => {
    const big = tiesState();
    const small = catalogState();
    const mixed = ["delete a branch", ...queries.slice(0, 20).map((q) => q.query), "sync tasks"];
    for (const query of mixed)
      for (const state of [big, small, big]) {
        expect(searched(state, query, 5), query).toEqual(referenceSearch(state, query, 5));
        // explainSearchResult scores with the same scratch: the first hit is still rank 1.
        const first = searched(state, query, 5)[0];
        if (first === undefined) continue;
        const tool = registryIndex(state)
          .servers.flatMap((s) => s.index.tools)
          .find((t) => t.wireName === first)!;
        const event = {
          type: "ToolsSearched" as const,
          v,
          callId: "c",
          query,
          limit: 1,
          kind: "words" as const,
          results: [],
        };
        expect(explainSearchResult(state, event, tool)).toEqual({
          kind: "below-limit",
          rank: 1,
          limit: 1,
        });
      }
  });
});
