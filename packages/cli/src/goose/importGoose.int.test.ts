import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoredEvent } from "@toolledger/core";
import { describe, expect, it } from "vitest";
import { LATEST_GOOSE_SCHEMA } from "../../testing/goose/gooseDatabase.js";
import { writeScenarioDatabase } from "../../testing/goose/gooseScenario.js";
import {
  events,
  importAll,
  readAllSessions,
  withStore,
} from "../../testing/goose/importForTest.js";

const dir = () => mkdtempSync(join(tmpdir(), "toolledger-goose-"));

function summary(evs: readonly StoredEvent[]) {
  return evs.map((e) => {
    const ev = e.event as Record<string, unknown>;
    const extra =
      ev.type === "ToolCallStarted"
        ? `${String(ev.callId)} ${String(ev.name)} -> ${String(ev.publicName)}`
        : ev.type === "ToolCallFinished"
          ? `${String(ev.callId)} ${String(ev.outcome)}${ev.reason ? ` ${String(ev.reason)}` : ""}`
          : ev.type === "ExtensionAdded" || ev.type === "ExtensionRemoved"
            ? String(ev.name ?? ev.extension)
            : ev.type === "ToolsFetched"
              ? `${String(ev.extension)}: ${(ev.tools as { name: string }[]).map((t) => t.name).join(",")}`
              : ev.type === "EnableToolsRequested"
                ? `${String(ev.callId)} ${(ev.names as string[]).join(",")}`
                : "";
    return `${ev.type}${extra ? ` ${extra}` : ""} [${e.event.origin?.kind ?? "-"}]`;
  });
}

describe("import goose: every schema version from the first SQLite release to the current one (issue 26)", () => {
  for (const version of Array.from({ length: LATEST_GOOSE_SCHEMA + 1 }, (_, i) => i)) {
    it(`schema v${version}: tool calls, errors, a declined call, a malformed one, extension changes, deferred loading, a compaction, a sub-agent`, async () => {
      const d = dir();
      const { file, main, sub } = writeScenarioDatabase(join(d, "sessions.db"), version);
      const sessions = readAllSessions(file);
      expect(sessions.map((s) => s.id).sort()).toEqual([main, sub].sort());
      await withStore(join(d, "ledger.db"), async (store) => {
        const results = await importAll(store, sessions);
        expect(results.every((r) => r.added > 0)).toBe(true);
        const conv = summary(await events(store, `goose-${main}`));
        expect(conv).toEqual([
          "ConversationStarted [inferred]",
          "SessionImported [exact]",
          "DeferralConfigured [inferred]",
          "ToolCallStarted toolu_01 developer__shell -> developer__shell [exact]",
          "ToolCallFinished toolu_01 ok [exact]",
          ...(version >= 15 ? ["UsageRecorded [exact]"] : []),
          "ToolCallStarted toolu_02 github__create_issue -> github__create_issue [exact]",
          "ToolCallFinished toolu_02 tool_error [exact]",
          "ToolCallStarted toolu_03 developer__shell -> developer__shell [exact]",
          "ToolCallFinished toolu_03 refused DECLINED_BY_USER [exact]",
          "ToolCallStarted toolu_04 nosuch__tool -> null [exact]",
          "ToolCallFinished toolu_04 refused UNKNOWN_TOOL [exact]",
          "ToolCallStarted toolu_05  -> null [exact]",
          "ToolCallFinished toolu_05 refused MALFORMED_CALL [exact]",
          "ToolCallStarted toolu_06 extensionmanager__manage_extensions -> extensionmanager__manage_extensions [exact]",
          "ToolCallFinished toolu_06 ok [exact]",
          "ToolCallStarted toolu_07 memory__add_note -> memory__add_note [exact]",
          "ToolCallFinished toolu_07 ok [exact]",
          "ToolCallStarted toolu_08 extensionmanager__load_tools -> extensionmanager__load_tools [exact]",
          "EnableToolsRequested toolu_08 github__list_repos [exact]",
          "EnableToolsResponded [exact]",
          "ToolCallFinished toolu_08 ok [exact]",
          "ToolCallStarted toolu_09 github__list_repos -> github__list_repos [exact]",
          "ToolCallFinished toolu_09 ok [exact]",
          ...(version >= 15 ? ["UsageRecorded [exact]"] : []),
          "ToolCallStarted toolu_10 extensionmanager__manage_extensions -> extensionmanager__manage_extensions [exact]",
          "ToolCallFinished toolu_10 ok [exact]",
          "Compacted [exact]",
          "ToolCallStarted toolu_11 developer__shell -> developer__shell [exact]",
          "ToolCallFinished toolu_11 ok [exact]",
          ...(version >= 15 ? ["UsageRecorded [exact]"] : ["UsageRecorded [inferred]"]),
        ]);
        const reg = summary(await events(store, `goose-${main}-registry`));
        expect(reg).toEqual([
          "HostStarted [inferred]",
          "ExtensionAdded developer [inferred]",
          "ExtensionAdded github [inferred]",
          "ExtensionAdded extensionmanager [inferred]",
          "ToolsFetched developer: shell [synthetic]",
          "ToolsFetched github: create_issue,list_repos [synthetic]",
          "ToolsFetched extensionmanager: load_tools,manage_extensions [synthetic]",
          "ExtensionAdded memory [exact]",
          "ToolsFetched memory: add_note [synthetic]",
          "ExtensionRemoved memory [exact]",
        ]);
        const subEvents = await events(store, `goose-${sub}`);
        const imported = subEvents.find((e) => e.event.type === "SessionImported")?.event;
        expect(imported).toMatchObject({
          parentSourceSession: main,
          parentConversation: `goose-${main}`,
          sessionType: version >= 5 ? "sub_agent" : "user",
        });
        // R6: no secret of an extension's config reaches the log.
        const all = JSON.stringify([
          ...(await events(store, `goose-${main}-registry`)),
          ...subEvents,
        ]);
        expect(all).not.toContain("ghp_secretvalue123");
      });
    });
  }
});
