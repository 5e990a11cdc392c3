import { describe, expect, it } from "vitest";
import { decide } from "../decide/decide.js";
import { modelView } from "../deferral/modelView.js";
import { decodeEventOrThrow } from "../events/decodeEvent.js";
import { host, tool } from "../fold/fixtures.test-helpers.js";
import { hget } from "../fold/hashDict.js";
import { searchAnswer } from "./searchAnswer.js";
import { SEARCH_TOOLS_TOOL } from "./searchPrompt.js";
import { searchTools } from "./searchTools.js";
import { serverIndex } from "./serverIndex.js";

function world(mode: "search" | "lookup" | "auto" = "search") {
  const h = host();
  h.add("github");
  h.add("slack");
  h.fetch("github", [
    tool("create_issue", {
      description: "Create a new issue in a GitHub repository",
      inputSchema: {
        type: "object",
        properties: {
          owner: { type: "string" },
          repo: { type: "string" },
          title: { type: "string" },
        },
      },
    }),
    tool("create_pull_request", {
      description: "Create a new pull request in a GitHub repository",
    }),
    tool("search_code", { description: "Search for code across GitHub repositories" }),
  ]);
  h.fetch("slack", [
    tool("slack_post_message", { description: "Post a new message to a Slack channel" }),
    tool("slack_list_channels", { description: "List public channels in the workspace" }),
  ]);
  h.run({ type: "ConfigureDeferral", mode, alwaysLoad: [] });
  return h;
}
const names = (r: ReturnType<typeof searchTools>) =>
  r.ok ? r.hits.map((x) => x.name) : r.error.code;

describe("searchTools (S1)", () => {
  it("ranks a task in the user's words: stemming, synonyms and identifier splitting", () => {
    const h = world();
    expect(names(searchTools(h.state, "report a bug in my repo"))[0]).toBe("github__create_issue");
    expect(names(searchTools(h.state, "send a note to the team chat"))[0]).toBe(
      "slack__slack_post_message",
    );
    expect(names(searchTools(h.state, "open a PR"))[0]).toBe("github__create_pull_request");
  });

  it("breaks ties by name, byte-wise (the same text in two servers)", () => {
    const h = host();
    for (const e of ["b", "a", "c"]) {
      h.add(e);
      h.fetch(e, [tool("ping", { description: "Ping the server" })]);
    }
    h.run({ type: "ConfigureDeferral", mode: "search", alwaysLoad: [] });
    expect(names(searchTools(h.state, "ping"))).toEqual(["a__ping", "b__ping", "c__ping"]);
    expect(names(searchTools(h.state, "ping", { limit: 2 }))).toEqual(["a__ping", "b__ping"]);
  });

  it("S1: the index follows extensions removed, added and refetched (also with as many extensions as before)", () => {
    const h = host();
    for (const e of ["a", "b"]) {
      h.add(e);
      h.fetch(e, [tool("ping", { description: "Ping the server" })]);
    }
    h.run({ type: "ConfigureDeferral", mode: "search", alwaysLoad: [] });
    expect(names(searchTools(h.state, "ping"))).toEqual(["a__ping", "b__ping"]);
    // As many extensions as before, other keys: b's tools are gone, c's are found.
    h.run({ type: "RemoveExtension", extension: "b" });
    h.add("c");
    h.fetch("c", [tool("ping", { description: "Ping the server" })]);
    expect(names(searchTools(h.state, "ping"))).toEqual(["a__ping", "c__ping"]);
    h.fetch("a", [tool("pong", { description: "Answer a ping" })]);
    expect(names(searchTools(h.state, "pong"))).toEqual(["a__pong"]);
    expect(names(searchTools(h.state, "ping the server"))).toEqual(["c__ping", "a__pong"]);
    h.add("0");
    h.fetch("0", [tool("ping", { description: "Ping the server" })]);
    expect(names(searchTools(h.state, "ping the server"))).toEqual([
      "0__ping",
      "c__ping",
      "a__pong",
    ]);
  });

  it("refuses bad queries with what to fix", () => {
    const h = world();
    expect(names(searchTools(h.state, " "))).toBe("EMPTY_QUERY");
    expect(names(searchTools(h.state, "the a of"))).toBe("EMPTY_QUERY");
    expect(names(searchTools(h.state, "x".repeat(501)))).toBe("QUERY_TOO_LONG");
    expect(names(searchTools(h.state, "issue", { limit: 0 }))).toBe("INVALID_LIMIT");
    expect(names(searchTools(h.state, "/(a/"))).toBe("INVALID_REGEX");
    expect(names(searchTools(h.state, "/(a)\\1/"))).toBe("INVALID_REGEX");
  });

  it("a /regex/ is case-insensitive over the same text, and bounded for real", () => {
    const h = world();
    expect(names(searchTools(h.state, "/PULL|channel/", { limit: 10 }))).toEqual([
      "github__create_pull_request",
      "slack__slack_list_channels",
      "slack__slack_post_message",
    ]);
    // Exponential for a backtracking engine on a long near-miss; linear here.
    const big = host();
    big.add("x");
    big.fetch("x", [tool("t", { description: `${"a".repeat(3_900)}!` })]);
    big.run({ type: "ConfigureDeferral", mode: "search", alwaysLoad: [] });
    const r = searchTools(big.state, "/(a+)+$/");
    expect(r.ok).toBe(true);
    expect(names(r)).toEqual([]);
  });

  it("finds only deferred tools: enabled and always-loaded ones are already in the model's list", () => {
    const h = world();
    h.run({ type: "EnableTools", callId: "e1", names: ["github__create_issue"] });
    expect(names(searchTools(h.state, "/issue/"))).toEqual([]);
  });

  it("a new ToolsFetched re-indexes only that server", () => {
    const h = world();
    searchTools(h.state, "issue");
    const github = hget(h.state.extensions, "github")!.tools;
    const slackBefore = serverIndex(hget(h.state.extensions, "slack")!.tools);
    h.fetch("slack", [tool("slack_reply", { description: "Reply in a thread" })]);
    expect(hget(h.state.extensions, "github")!.tools).toBe(github);
    expect(serverIndex(github)).toBe(serverIndex(hget(h.state.extensions, "github")!.tools));
    expect(serverIndex(hget(h.state.extensions, "slack")!.tools)).not.toBe(slackBefore);
    expect(names(searchTools(h.state, "reply in a thread"))[0]).toBe("slack__slack_reply");
  });
});

describe("search mode's model view and events (S1, S2)", () => {
  it("serves search_tools and enable_tools, always loaded, and a section of servers with counts", () => {
    const view = modelView(world().state);
    expect(view.strategy).toBe("search");
    expect(view.tools.map((t) => t.name)).toEqual(["enable_tools", "search_tools"]);
    for (const t of view.tools) expect(t._meta).toEqual({ "anthropic/alwaysLoad": true });
    expect(view.systemPrompt).toContain("5 tools are available from 2 servers");
    expect(view.systemPrompt).toMatch(/^- github: 3 tools \(.*issue.*\)$/m);
    expect(view.systemPrompt).toMatch(/^- slack: 2 tools/m);
    expect(view.systemPrompt).not.toContain("github__create_issue");
    expect(SEARCH_TOOLS_TOOL.inputSchema).toMatchObject({ required: ["query"] });
  });

  it("auto is lookup under its budget and search over it", () => {
    const h = world("auto");
    expect(modelView(h.state).strategy).toBe("lookup");
    expect(modelView(h.state).systemPrompt).toContain("github__create_issue");
    h.run({ type: "ConfigureDeferral", mode: "auto", alwaysLoad: [], budget: 40 });
    expect(modelView(h.state).strategy).toBe("search");
  });

  it("a search is an event with its query and names, answered from the log", () => {
    const h = world();
    const [event] = h.run({ type: "SearchTools", callId: "s1", query: "post to slack", limit: 1 });
    expect(event).toMatchObject({
      type: "ToolsSearched",
      callId: "s1",
      query: "post to slack",
      limit: 1,
      kind: "words",
      results: ["slack__slack_post_message"],
    });
    if (event?.type !== "ToolsSearched") throw new Error("no search");
    expect(searchAnswer(h.state, event).text).toContain(
      "- slack__slack_post_message: Post a new message to a Slack channel",
    );
    const refused = decide(h.state, { type: "SearchTools", callId: "s2", query: "/(/" });
    expect(refused.ok && refused.events[0]).toMatchObject({
      results: [],
      error: { code: "INVALID_REGEX" },
    });
  });

  it("an older-shaped ToolsSearched decodes with defaults (E6)", () => {
    const e = decodeEventOrThrow({
      type: "ToolsSearched",
      v: 1,
      callId: "c",
      query: "q",
      limit: 5,
    });
    expect(e).toMatchObject({ kind: "words", results: [] });
  });
});
