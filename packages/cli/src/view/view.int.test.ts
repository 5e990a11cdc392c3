import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { exampleServers } from "@toolledger/adapters-mcp";
import { compareBytes, type McpTool } from "@toolledger/core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { chromiumSkipReason, launchChromium, watchedPage } from "../../testing/chromium.js";
import { longSession } from "../../testing/longSession.js";
import { sampleLog, toJsonl } from "../../testing/sampleLog.js";
import { eventually } from "../../testing/startServe.js";
import { testDeps } from "../../testing/testDeps.js";
import { EXIT } from "../program/exitCodes.js";
import { run } from "../program/run.js";

/** What the page exposes to tests (see page/main.ts). */
type PageGlobals = {
  toolledgerView: { readyMs: number; foldedMs?: number; cursor: () => number };
  pwned?: number;
};

const noBrowser = chromiumSkipReason();
let browser: Browser;
beforeAll(async () => {
  if (noBrowser === null) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** `toolledger view` as a function; returns the page's path. */
async function view(args: string[], cwd?: string): Promise<string> {
  const t = testDeps();
  const code = await run(["view", ...args], cwd ? { ...t.deps, cwd } : t.deps);
  expect(t.stderr()).toContain("wrote the view of");
  expect(code).toBe(EXIT.ok);
  return t.stdout().trim();
}

interface ReplayTo {
  tools: { name: string; class: string }[];
  enabled: string[];
  pending: { callId: string; names: string[] }[];
  diagnostics: { message: string }[];
  deferral: { mode: string };
  version: number;
}

async function replayTo(source: string, position: number, cwd: string): Promise<ReplayTo> {
  const t = testDeps();
  expect(
    await run(["replay", source, "--to", String(position), "--json"], { ...t.deps, cwd }),
  ).toBe(EXIT.ok);
  return JSON.parse(t.stdout()) as ReplayTo;
}

/** What the page shows for the state at the scrubber. */
async function shownState(page: Page) {
  const items = (id: string) =>
    page.locator(`[data-testid=state] [data-testid=${id}] li`).allTextContents();
  return {
    heading: await page.locator("[data-testid=state-heading]").textContent(),
    eager: await items("eager"),
    deferred: await items("deferred"),
    enabled: await items("enabled"),
    pending: await items("pending"),
    diagnostics: await items("diagnostics"),
  };
}

/** The model view `replay --to` describes, in the page's terms (D4: `enable_tools` joins the eager tools in lookup mode). */
function expectedState(r: ReplayTo) {
  const eager = r.tools.filter((t) => t.class === "eager").map((t) => t.name);
  if (r.deferral.mode === "lookup") eager.push("enable_tools");
  return {
    eager: eager.sort(compareBytes),
    deferred: r.tools.filter((t) => t.class === "deferred").map((t) => t.name),
    enabled: r.enabled,
    pending: r.pending.map((p) => `${p.callId}: ${p.names.join(", ")}`),
    diagnostics: r.diagnostics.map((d) => d.message),
  };
}

async function open(page: Page, file: string): Promise<void> {
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector("html[data-folded]", { timeout: 120_000 });
}

describe.skipIf(noBrowser !== null)(
  "toolledger view: the page in a real Chromium (Debian's chromium, driven by playwright-core)",
  () => {
    const sample = () => {
      const t = testDeps();
      const log = join(t.dir, "sample.jsonl");
      writeFileSync(log, toJsonl(sampleLog().entries));
      return { dir: t.dir, log };
    };

    test("loads from file:// with no console error and no request; the timeline shows every event of the session", async () => {
      const t = testDeps();
      const log = join(t.dir, "sample.jsonl");
      writeFileSync(log, toJsonl(sampleLog().entries));
      const db = join(t.dir, "s.db");
      expect(await run(["import", log, "--session", "s1", "--db", db], t.deps)).toBe(EXIT.ok);
      const file = await view(["s1", "--db", db]);
      expect(file).toBe(join(t.dir, "s1.html"));

      const { page, problems, requests } = await watchedPage(browser);
      await open(page, file);
      expect(problems).toEqual([]);
      expect(requests).toEqual([pathToFileURL(file).href]);

      const rows = page.locator("[data-testid=timeline] .row");
      expect(await rows.count()).toBe(28);
      expect(await page.locator("[data-testid=event-count]").textContent()).toBe("28 events");
      const row = (p: number) => page.locator(`[data-testid=timeline] .row[data-position="${p}"]`);
      expect(await row(1).textContent()).toContain("DeferralConfigured");
      // R11: the stale fetch, with its rule linked; D6: the failed enable and the orphan response.
      expect(await row(12).textContent()).toContain(
        "stale fetch of notes ignored: started at version 4, registry at 5",
      );
      expect(await row(12).locator(".rule").first().textContent()).toBe("R11");
      expect(await row(16).textContent()).toContain("enable_tools call-2 failed");
      expect(await row(16).getAttribute("class")).toContain("error");
      expect(await row(21).textContent()).toContain("anomaly: response without request");
      expect(await row(24).textContent()).toContain(
        "fetching flaky's tools failed: connection closed",
      );
      expect(await row(27).textContent()).toContain("replaced: config changed");
    });

    test("moving the scrubber shows what `replay --to` computes for that position", async () => {
      const { dir, log } = sample();
      const file = await view([log]);
      const { page, problems } = await watchedPage(browser);
      await open(page, file);
      for (const position of [0, 7, 12, 14, 16, 17, 18, 20, 21, 24, 28]) {
        await page.locator("[data-testid=position]").fill(String(position));
        await page.locator("[data-testid=position]").press("Enter");
        const shown = await shownState(page);
        const r = await replayTo(log, position, dir);
        const { heading, ...rest } = shown;
        expect(rest, `position ${position}`).toEqual(expectedState(r));
        expect(heading).toContain(
          position === 0 ? "before the first event" : `State after position ${position}`,
        );
        expect(heading).toContain(`version ${r.version}`);
      }
      // The range input itself, dragged back to position 13.
      await page.locator("[data-testid=scrubber]").fill("13");
      await page.waitForFunction(
        () => (globalThis as unknown as PageGlobals).toolledgerView.cursor() === 13,
      );
      const { heading: _h, ...at13 } = await shownState(page);
      expect(at13).toEqual(expectedState(await replayTo(log, 13, dir)));
      // Clicking an event scrubs to it and shows what it changed, as `replay` prints it.
      await page.locator('[data-testid=timeline] .row[data-position="9"]').click();
      expect(await page.locator("[data-testid=position]").inputValue()).toBe("9");
      expect(await page.locator("[data-testid=detail]").textContent()).toContain(
        "collision on a__b__c: a wins, a__b lost it",
      );
      expect(problems).toEqual([]);
    });

    test("filters by kind, extension and problems", async () => {
      const { log } = sample();
      const { page, problems } = await watchedPage(browser);
      await open(page, await view([log]));
      const rows = page.locator("[data-testid=timeline] .row");
      await page.locator('[data-kind="ToolsFetched"]').uncheck();
      expect(await rows.count()).toBe(28 - 8);
      expect(await rows.allTextContents()).not.toContainEqual(
        expect.stringContaining("ToolsFetched"),
      );
      await page.locator('[data-kind="ToolsFetched"]').check();
      await page.locator("[data-testid=extension-filter]").selectOption("notes");
      const notes = await rows.allTextContents();
      expect(notes.length).toBeGreaterThan(3);
      for (const text of notes) expect(text).toContain("notes");
      await page.locator("[data-testid=extension-filter]").selectOption("");
      await page.locator("[data-testid=problems-only]").check();
      const problemRows = await page
        .locator("[data-testid=timeline] .row")
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-position")));
      // The stale fetch, the collision, the failed enable, the orphan, the failed fetch, the replacement.
      expect(problemRows).toEqual(expect.arrayContaining(["9", "12", "16", "21", "24", "27"]));
      expect(problemRows).not.toContain("1");
      expect(problems).toEqual([]);
    });

    test("hostile tool text stays text: no script runs, no request is made", async () => {
      const t = testDeps();
      const hostile: McpTool = {
        name: "evil",
        description:
          '</script><script>window.pwned=1</script><img src="http://127.0.0.1:9/x" onerror="window.pwned=2">',
        inputSchema: { type: "object" },
      };
      const events = [
        { type: "ExtensionAdded", v: 1, name: "</script>", kind: "stdio", configFingerprint: "x" },
        {
          type: "ToolsFetched",
          v: 1,
          extension: "</script>",
          startedAtVersion: 1,
          tools: [hostile],
        },
      ];
      const log = join(t.dir, "hostile.jsonl");
      writeFileSync(log, `${events.map((e) => JSON.stringify(e)).join("\n")}\n`);
      const { page, problems, requests } = await watchedPage(browser);
      await open(page, await view([log]));
      await page.locator('[data-testid=timeline] .row[data-position="2"]').click();
      expect(await page.locator("[data-testid=detail] .json").textContent()).toContain(
        "<script>window.pwned=1</script>",
      );
      expect(
        await page.evaluate(() => (globalThis as unknown as PageGlobals).pwned),
      ).toBeUndefined();
      expect(requests).toHaveLength(1);
      expect(problems).toEqual([]);
    });

    test("the demo's conversation: registry and conversation events in one timeline; the demo, `tools` and the view show the same token figure", async () => {
      const t = testDeps();
      const db = join(t.dir, "demo.db");
      expect(await run(["demo", "--db", db, "--json"], t.deps)).toBe(EXIT.ok);
      const demo = JSON.parse(t.stdout()) as {
        session: string;
        tokens: { tokenizer: string; received: number; deferralOff: number };
      };
      expect(demo.tokens.tokenizer).toBe("o200k_base");
      expect(demo.tokens.received).toBeLessThan(demo.tokens.deferralOff);

      const { page, problems, requests } = await watchedPage(browser);
      await open(page, await view([demo.session, "--db", db]));
      const tokens = page.locator("[data-testid=tokens]");
      expect(await tokens.getAttribute("data-received")).toBe(String(demo.tokens.received));
      expect(await tokens.getAttribute("data-off")).toBe(String(demo.tokens.deferralOff));
      const types = await page.locator("[data-testid=timeline] .row .type").allTextContents();
      // C1: the host's registry events are folded into the conversation's timeline, calls too (C4).
      expect(types).toEqual(
        expect.arrayContaining([
          "HostStarted",
          "ConversationStarted",
          "ExtensionAdded",
          "ToolsFetched",
          "ToolCallStarted",
          "ToolCallFinished",
          "ConversationClosed",
        ]),
      );
      expect(
        await page.locator("[data-testid=timeline] .row.warn").first().textContent(),
      ).toContain("refused");

      // `tools` on the same servers, nothing enabled: the figure the view shows before the first enable.
      const config = join(t.dir, "servers.json");
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: Object.fromEntries(
            exampleServers().map((s) => [s.name, { command: s.command, args: s.args }]),
          ),
        }),
      );
      const tl = testDeps();
      expect(
        await run(["tools", "--config", config, "--deferral", "lookup", "--json"], tl.deps),
      ).toBe(EXIT.ok);
      const listed = JSON.parse(tl.stdout()) as {
        tokens: { received: number; deferralOff: number };
      };
      const request = page.locator("[data-testid=timeline] .row", {
        hasText: "EnableToolsRequested",
      });
      const position = Number(await request.first().getAttribute("data-position"));
      await page.locator("[data-testid=position]").fill(String(position));
      await page.locator("[data-testid=position]").press("Enter");
      expect(await tokens.getAttribute("data-received")).toBe(String(listed.tokens.received));
      expect(await tokens.getAttribute("data-off")).toBe(String(listed.tokens.deferralOff));
      // The conversation folded with its registry stream, at a few positions, as `replay --to` says.
      for (const p of [2, position, position + 3, position + 10]) {
        await page.locator("[data-testid=position]").fill(String(p));
        await page.locator("[data-testid=position]").press("Enter");
        const { heading: _h, ...shown } = await shownState(page);
        const r = testDeps();
        expect(
          await run(["replay", demo.session, "--db", db, "--to", String(p), "--json"], r.deps),
        ).toBe(EXIT.ok);
        expect(shown, `position ${p}`).toEqual(expectedState(JSON.parse(r.stdout()) as ReplayTo));
      }
      expect(problems).toEqual([]);
      expect(requests).toHaveLength(1);
    }, 120_000);

    test("the first render describes the first screen of events (timeline, scrubber, chart, token figure); the state panel and the rest of the fold come after its frame", async () => {
      const t = testDeps();
      const log = join(t.dir, "long.jsonl");
      writeFileSync(
        log,
        `${longSession(5_000)
          .map((e) => JSON.stringify(e))
          .join("\n")}\n`,
      );
      const file = await view([log]);
      const { page, problems } = await watchedPage(browser);
      // The page as its first render left it: a mutation record is delivered at the end of the
      // task that set data-ready, before any later task of the page runs.
      await page.addInitScript(`
        new MutationObserver((_records, observer) => {
          if (document.documentElement?.dataset.ready !== "true") return;
          observer.disconnect();
          const q = (selector) => document.querySelector(selector);
          globalThis.firstRender = {
            events: q("[data-testid=event-count]")?.textContent,
            scrubberMax: Number(q("[data-testid=scrubber]").max),
            rows: document.querySelectorAll("[data-testid=timeline] .row").length,
            chart: q("[data-testid=token-chart] path")?.getAttribute("d") ?? "",
            tokens: q("[data-testid=tokens]")?.textContent ?? "",
            state: q("[data-testid=state]")?.textContent,
          };
        }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-ready"] });
      `);
      await open(page, file);
      const first = await page.evaluate(
        () =>
          (
            globalThis as unknown as {
              firstRender: {
                events: string;
                scrubberMax: number;
                rows: number;
                chart: string;
                tokens: string;
                state: string;
              };
            }
          ).firstRender,
      );
      expect(first.events).toBe("5,000 events");
      // The rows the 900 px list shows (22 px each) and 20 more: no per-event work for the rest.
      const screen = Math.ceil(900 / 22) + 20;
      expect(first.scrubberMax).toBe(screen);
      expect(first.rows).toBeGreaterThan(40);
      expect(first.chart).toMatch(/^M0 100L/);
      expect(first.tokens).toMatch(/tokens of tool definitions sent/);
      expect(first.state).toBe("");
      // Then the state panel and every event.
      expect(await page.locator("[data-testid=scrubber]").getAttribute("max")).toBe("5000");
      expect(await page.locator("[data-testid=state-heading]").textContent()).toContain(
        "State after position 5000",
      );
      expect(problems).toEqual([]);
    }, 120_000);

    test("a 100,000-event session renders, scrolls and scrubs (render time reported, the bound is measured in pnpm bench)", async () => {
      const t = testDeps();
      const log = join(t.dir, "long.jsonl");
      writeFileSync(
        log,
        `${longSession(100_000)
          .map((e) => JSON.stringify(e))
          .join("\n")}\n`,
      );
      const file = await view([log]);
      const { page, problems, requests } = await watchedPage(browser);
      await open(page, file);
      const { readyMs, foldedMs } = await page.evaluate(
        () => (globalThis as unknown as PageGlobals).toolledgerView,
      );
      console.log(
        `100,000-event view: first render ${readyMs.toFixed(0)} ms, every event folded ${foldedMs?.toFixed(0)} ms after navigation`,
      );
      expect(await page.locator("[data-testid=event-count]").textContent()).toBe("100,000 events");
      // Virtualised: only the rows in view are in the DOM.
      expect(await page.locator("[data-testid=timeline] .row").count()).toBeLessThan(100);
      await page.locator("[data-testid=timeline]").evaluate((el) => {
        el.scrollTop = el.scrollHeight;
      });
      await page.locator('[data-testid=timeline] .row[data-position="100000"]').waitFor();
      for (const position of [1_000, 61_234]) {
        await page.locator("[data-testid=position]").fill(String(position));
        await page.locator("[data-testid=position]").press("Enter");
        const { heading: _h, ...shown } = await shownState(page);
        expect(shown, `position ${position}`).toEqual(
          expectedState(await replayTo(log, position, t.dir)),
        );
      }
      expect(problems).toEqual([]);
      expect(requests).toHaveLength(1);
    }, 300_000);
  },
);

describe("toolledger view: where the page goes", () => {
  test("--open hands the file:// URL to $BROWSER; --out writes where asked", async () => {
    const t = testDeps();
    const log = join(t.dir, "sample.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    const opened = join(t.dir, "opened.txt");
    const browserScript = join(t.dir, "browser.sh");
    writeFileSync(browserScript, `#!/bin/sh\necho "$1" > ${JSON.stringify(opened)}\n`, {
      mode: 0o755,
    });
    const out = join(t.dir, "pages", "s.html");
    const code = await run(["view", log, "--out", out, "--open"], {
      ...t.deps,
      env: { ...t.deps.env, BROWSER: browserScript },
    });
    expect(code).toBe(EXIT.ok);
    expect(t.stdout().trim()).toBe(out);
    expect(readFileSync(out, "utf8")).toContain("<title>sample · toolledger view</title>");
    await eventually(() => existsSync(opened), "the browser script");
    expect(readFileSync(opened, "utf8").trim()).toBe(pathToFileURL(out).href);
  });

  test("an unknown session is not found (exit 4), naming the sessions there are; nothing is written", async () => {
    const t = testDeps();
    const log = join(t.dir, "sample.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    const db = join(t.dir, "s.db");
    expect(await run(["import", log, "--session", "s1", "--db", db], t.deps)).toBe(EXIT.ok);
    const v = testDeps();
    expect(await run(["view", "nope", "--db", db], v.deps)).toBe(EXIT.notFound);
    expect(v.stderr()).toContain('no session "nope"');
    expect(v.stderr()).toContain("s1");
    expect(existsSync(join(t.dir, "nope.html"))).toBe(false);
  });
});
