import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { chromiumSkipReason, launchChromium, watchedPage } from "../../testing/chromium.js";
import { sampleLog, toJsonl } from "../../testing/sampleLog.js";
import { cleanEnv, runCli, tempDir } from "../../testing/spawnCli.js";

// Issue 34, point 10: the timeline's task symbol was `⧗`, which no font of a Debian desktop
// has: Chromium drew an empty box. Every symbol the timeline shows must be drawn by the
// page's own fonts (system fonts: DejaVu on Debian), here in Debian's Chromium.

const noBrowser = chromiumSkipReason();
let browser: Browser;
beforeAll(async () => {
  if (noBrowser === null) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** The few DOM names the page-side check uses (the tests compile without the DOM's types). */
interface PageDom {
  document: {
    querySelectorAll(selector: string): Iterable<{ textContent: string | null }>;
    createElement(tag: "canvas"): {
      width: number;
      height: number;
      getContext(kind: "2d"): {
        font: string;
        fillText(text: string, x: number, y: number): void;
        getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
      } | null;
    };
  };
  getComputedStyle(element: unknown): { font: string };
}

/** The sample session, then a call that became a task (C6) and its end. */
function sessionWithTask(dir: string): string {
  const at = "2026-11-30T10:00:00.000Z";
  const events = [
    ...toJsonl(sampleLog().entries).trim().split("\n"),
    JSON.stringify({
      type: "ToolCallStarted",
      v: 1,
      at,
      callId: "c-task",
      name: "notes__add_note",
      publicName: "notes__add_note",
      owner: "notes",
      rawName: "add_note",
    }),
    JSON.stringify({
      type: "TaskCreated",
      v: 1,
      at,
      callId: "c-task",
      taskId: "81033134-4bc0-44f9-9ab4-460171356a32",
      runner: "server",
      upstreamTaskId: "u1",
      ttlMs: 300000,
      pollIntervalMs: 1000,
      requested: true,
    }),
    JSON.stringify({
      type: "ToolCallFinished",
      v: 1,
      at,
      callId: "c-task",
      outcome: "ok",
      durationMs: 12,
      reason: null,
      error: null,
    }),
  ];
  const log = join(dir, "task.jsonl");
  writeFileSync(log, `${events.join("\n")}\n`);
  return log;
}

describe.skipIf(noBrowser !== null)(
  "the view's symbols in a real Chromium (issue 34, point 10)",
  () => {
    test("every symbol on the timeline, the task's included, is a glyph of the page's fonts, not an empty box", async () => {
      const dir = tempDir();
      const env = cleanEnv(dir);
      const db = join(dir, "s.db");
      const imported = await runCli(
        ["import", sessionWithTask(dir), "--session", "s1", "--db", db],
        { cwd: dir, env },
      );
      expect(imported.code, imported.stderr).toBe(0);
      const out = join(dir, "s1.html");
      const view = await runCli(["view", "s1", "--db", db, "--out", out], { cwd: dir, env });
      expect(view.code, view.stderr).toBe(0);

      const { page, problems } = await watchedPage(browser);
      await page.goto(pathToFileURL(out).href);
      await page.waitForSelector("html[data-folded]", { timeout: 120_000 });
      expect(problems).toEqual([]);
      const task = page.locator("[data-testid=timeline] .row", {
        hasText: "runs as task 81033134",
      });
      expect(await task.count()).toBe(1);
      const taskText = (await task.first().textContent()) ?? "";
      expect(taskText).toContain("◷ notes__add_note runs as task 81033134, by its server");

      // Each symbol drawn in the row's font, against a code point no font has (drawn as the
      // font's empty box): a symbol the fonts lack draws exactly that box.
      const drawn = await page.evaluate(() => {
        const { document, getComputedStyle } = globalThis as unknown as PageDom;
        const rows = [...document.querySelectorAll("[data-testid=timeline] .row")];
        const font = getComputedStyle(rows[0]!).font;
        const symbols = [
          ...new Set(
            rows.flatMap((r) =>
              [...(r.textContent ?? "")].filter((c) =>
                /[\u2190-\u2bff\u{1f300}-\u{1faff}]/u.test(c),
              ),
            ),
          ),
        ];
        const draw = (s: string) => {
          const canvas = document.createElement("canvas");
          canvas.width = 48;
          canvas.height = 48;
          const ctx = canvas.getContext("2d")!;
          ctx.font = font;
          ctx.fillText(s, 8, 32);
          return Array.from(ctx.getImageData(0, 0, 48, 48).data).join(",");
        };
        const box = draw("\u{10fffd}");
        const blank = draw(" ");
        return {
          font,
          symbols: symbols.map((s) => ({ s, box: draw(s) === box, blank: draw(s) === blank })),
        };
      });
      expect(drawn.symbols.map((x) => x.s)).toEqual(expect.arrayContaining(["◷", "✓"]));
      for (const x of drawn.symbols)
        expect({ symbol: x.s, font: drawn.font, box: x.box, blank: x.blank }).toEqual({
          symbol: x.s,
          font: drawn.font,
          box: false,
          blank: false,
        });
    }, 180_000);
  },
);
