import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeScenarioDatabase } from "../../testing/goose/gooseScenario.js";
import { importAll, readAllSessions, withStore } from "../../testing/goose/importForTest.js";
import { foldEntries } from "../session/foldEntries.js";
import { readSession } from "../session/readSession.js";
import { SessionTimeline } from "./sessionTimeline.js";
import { fromViewEntry, toViewEntries } from "./viewEntries.js";

describe("the view of an imported goose session (issue 26)", () => {
  it("marks calls to unknown tools and to deferred tools that were not enabled, and says what was inferred or synthesised", async () => {
    const d = mkdtempSync(join(tmpdir(), "toolledger-goose-view-"));
    const { file, main } = writeScenarioDatabase(join(d, "sessions.db"), 16);
    await withStore(join(d, "ledger.db"), async (store) => {
      await importAll(store, readAllSessions(file));
      const entries = await readSession(store, `goose-${main}`);
      const data = JSON.parse(JSON.stringify(toViewEntries(entries))) as ReturnType<
        typeof toViewEntries
      >;
      const timeline = new SessionTimeline();
      timeline.append(foldEntries(data.entries.map((v) => fromViewEntry(v, data))));
      const texts = timeline.rows.map((r) => `${r.severity} ${r.text}`);
      expect(texts).toContain(
        "warn → call github__create_issue (github: create_issue) — deferred and not enabled (goose ran it; toolledger's gateway refuses it, D9)",
      );
      expect(texts).toContain(
        "warn → call nosuch__tool — unknown tool: no extension of the session had it",
      );
      // After load_tools enabled it, the call to github__list_repos is an ordinary one.
      expect(texts).toContain("info → call github__list_repos (github: list_repos)");
      expect(texts.some((t) => t.includes("[synthetic: goose does not store tool lists"))).toBe(
        true,
      );
      expect(
        texts.some((t) => t.includes("[inferred: from the session's enabled-extensions state")),
      ).toBe(true);
    });
  });
});
