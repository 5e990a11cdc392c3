import { GooseDatabase } from "./gooseDatabase.js";
import {
  assistantCalls,
  assistantText,
  call,
  DECLINED,
  dispatchError,
  loadTools,
  type Msg,
  malformedRequest,
  manageExtension,
  toolResponse,
  userResponses,
  userText,
} from "./gooseMessages.js";

/** The enabled-extensions state of the scenario at its end (ExtensionConfig, tagged by `type`). */
export const SCENARIO_EXTENSIONS = [
  {
    type: "builtin",
    name: "developer",
    display_name: "Developer",
    timeout: 300,
    bundled: true,
    description: "",
    available_tools: [],
  },
  {
    type: "stdio",
    name: "github",
    cmd: "npx",
    args: ["-y", "@modelcontextprotocol/server-github"],
    envs: { GITHUB_TOKEN: "ghp_secretvalue123" },
    env_keys: [],
    timeout: 300,
    description: "",
    available_tools: [],
  },
  {
    type: "platform",
    name: "extensionmanager",
    description: "",
    bundled: true,
    available_tools: [],
  },
];

/**
 * The messages of the main scenario session, as goose would have stored them before any
 * compaction: calls that succeed, fail, are declined, are unknown and malformed; an extension
 * enabled and disabled through the extension manager; a deferred-loading request.
 */
export function scenarioMessages(t0 = 1_790_000_000): Msg[] {
  return [
    userText(t0, "fix the build"),
    ...call(
      t0 + 1,
      "toolu_01",
      "developer__shell",
      { command: "npm test" },
      toolResponse("toolu_01", "2 failing"),
    ),
    ...call(
      t0 + 3,
      "toolu_02",
      "github__create_issue",
      { title: "x" },
      toolResponse("toolu_02", "Validation Failed: repo archived", { isError: true }),
    ),
    ...call(
      t0 + 5,
      "toolu_03",
      "developer__shell",
      { command: "rm -rf /" },
      toolResponse("toolu_03", DECLINED),
    ),
    ...call(
      t0 + 7,
      "toolu_04",
      "nosuch__tool",
      {},
      dispatchError("toolu_04", -32602, "Tool 'nosuch__tool' not found"),
    ),
    assistantCalls(t0 + 9, null, malformedRequest("toolu_05", "{not json")),
    userResponses(
      t0 + 10,
      dispatchError("toolu_05", -32602, "Could not interpret tool use parameters for id toolu_05"),
    ),
    ...manageExtension(t0 + 11, "toolu_06", "enable", "memory"),
    ...call(
      t0 + 13,
      "toolu_07",
      "memory__add_note",
      { note: "build is red" },
      toolResponse("toolu_07", "saved"),
    ),
    ...loadTools(t0 + 15, "toolu_08", { names: ["github__list_repos"] }, ["github__list_repos"]),
    ...call(t0 + 17, "toolu_09", "github__list_repos", {}, toolResponse("toolu_09", "[]")),
    ...manageExtension(t0 + 19, "toolu_10", "disable", "memory"),
    assistantText(t0 + 21, "I filed what I could."),
  ];
}

export interface ScenarioDb {
  file: string;
  main: string;
  sub: string;
}

/**
 * sessions.db at `version` with the scenario: the main session (compacted once, then one more
 * call), its usage recorded per turn, and a sub-agent session it started.
 */
export function writeScenarioDatabase(
  file: string,
  version: number,
  t0 = 1_790_000_000,
): ScenarioDb {
  const g = new GooseDatabase(file, version);
  try {
    const main = g.createSession({ name: "fix the build", createdAt: "2026-09-21 10:00:00" });
    g.setExtensions(main, SCENARIO_EXTENSIONS);
    g.addMessages(main, scenarioMessages(t0));
    g.recordUsage(main, { input: 1200, output: 300, created: t0 + 2 });
    g.recordUsage(main, { input: 1500, output: 200, created: t0 + 18 });
    // Before messages had metadata (v3), goose marked a compaction with a block of its own.
    if (version < 3) g.compactLegacy(main, t0 + 30, "Conversation compacted and summarized");
    else g.compact(main, t0 + 30, "The user asked to fix the build; tests fail.", false);
    g.addMessages(
      main,
      call(
        t0 + 31,
        "toolu_11",
        "developer__shell",
        { command: "npm test" },
        toolResponse("toolu_11", "ok"),
      ),
    );
    g.recordUsage(main, { input: 900, output: 100, created: t0 + 32 });
    const sub = g.createSession({
      name: `Subagent task for: ${main}`,
      type: "sub_agent",
      parent: main,
      createdAt: "2026-09-21 10:01:00",
    });
    g.setExtensions(sub, [SCENARIO_EXTENSIONS[0]]);
    g.addMessages(
      sub,
      userText(t0 + 40, "run the tests"),
      ...call(
        t0 + 41,
        "toolu_s1",
        "developer__shell",
        { command: "npm test" },
        toolResponse("toolu_s1", "ok"),
      ),
    );
    return { file, main, sub };
  } finally {
    g.close();
  }
}
