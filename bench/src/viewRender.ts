import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildViewData, type LogEntry, renderViewHtml, type ViewData } from "@toolledger/cli";
import { chromium } from "playwright-core";
import { type BenchResult, measured, notRun } from "./benchResult.js";
import { interleave } from "./interleave.js";
import { sessionLog, sessionLogOptions } from "./sessionLog.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** The bound for a 100,000-event session. */
const BOUND_MS = 2000;

/**
 * The floor of any page that embeds the same data: parse it (the head and, once the document is
 * parsed, the rest) and show one line, nothing else.
 */
const PARSE_ONLY = `addEventListener("DOMContentLoaded",()=>{const d=JSON.parse(document.getElementById("toolledger-data").textContent);JSON.parse(document.getElementById("toolledger-rest").textContent);document.getElementById("app").textContent=d.steps+" events";window.toolledgerView={readyMs:performance.now(),foldedMs:performance.now()};document.documentElement.dataset.folded="true";});`;

interface PageTimes {
  /** The page's script finished its first render (before the browser lays it out and paints it). */
  readyMs: number;
  foldedMs: number;
  /** The first frame with content on screen (Paint Timing's first-contentful-paint). */
  shownMs: number;
}

/**
 * Benchmark 10: `toolledger view` of a 100,000-event session (the benchmark log's mix, cut to
 * 100k events) in Debian's Chromium: 10a the first render (timeline, scrubber and chart) on
 * screen, as the user meets it: the first contentful frame, which holds the whole first render
 * (the page builds it in one task and shows nothing before); 10b every event folded (every
 * position's state ready). Both from navigation start, against a page that only parses the
 * same embedded data and shows one line (its first contentful frame).
 */
export async function viewRender(rounds: number): Promise<BenchResult[]> {
  const name = "view of a 100k-event session: first render";
  const baselineName = "page that only JSON.parses the same data and shows a line";
  const events = [...sessionLog(sessionLogOptions(100_000))];
  const entries: LogEntry[] = events.map((event, i) => ({ position: i + 1, event }));
  const data: ViewData = buildViewData(entries, {
    title: "bench-100k",
    source: "bench/src/sessionLog.ts",
    version: "bench",
    now: new Date(),
    rules: {},
  });
  const dir = mkdtempSync(join(tmpdir(), "toolledger-bench-view-"));
  const view = join(dir, "view.html");
  const parseOnly = join(dir, "parse-only.html");
  const html = renderViewHtml(data);
  writeFileSync(view, html);
  writeFileSync(parseOnly, renderViewHtml(data, PARSE_ONLY));
  let browser: Awaited<ReturnType<typeof chromium.launch>>;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return [
      notRun(
        "10a",
        name,
        baselineName,
        `no Chromium at ${CHROMIUM}: ${String(error).split("\n")[0]}`,
      ),
    ];
  }
  const folded: number[] = [];
  const ready: number[] = [];
  try {
    const load = async (file: string): Promise<PageTimes> => {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      try {
        await page.goto(pathToFileURL(file).href, { timeout: 120_000 });
        await page.waitForSelector("html[data-folded]", { timeout: 120_000 });
        await page.waitForFunction(
          () => performance.getEntriesByName("first-contentful-paint").length > 0,
          undefined,
          { timeout: 120_000 },
        );
        const t = await page.evaluate(() => ({
          ...(globalThis as unknown as { toolledgerView: { readyMs: number; foldedMs: number } })
            .toolledgerView,
          shownMs: performance.getEntriesByName("first-contentful-paint")[0]!.startTime,
        }));
        // Content on screen before the script's first render was complete would not be it.
        if (t.shownMs < t.readyMs)
          throw new Error(
            `${file}: first contentful paint at ${t.shownMs} ms, before the first render was complete (${t.readyMs} ms)`,
          );
        return t;
      } finally {
        await page.close();
      }
    };
    const r = await interleave(
      { rounds, warmup: 1 },
      async () => {
        const t = await load(view);
        folded.push(t.foldedMs);
        ready.push(t.readyMs);
        return t.shownMs;
      },
      async () => (await load(parseOnly)).shownMs,
    );
    const measuredFolds = folded.slice(-r.toolledger.length);
    const sorted = [...measuredFolds].sort((a, b) => a - b);
    const foldedMedian = sorted[Math.floor(sorted.length / 2)]!;
    const mib = Buffer.byteLength(html) / 2 ** 20;
    const first = measured({
      id: "10a",
      name,
      unit: "ms",
      toolledger: r.toolledgerMedian,
      baseline: r.baselineMedian,
      baselineName,
      target: { op: "<", value: BOUND_MS, absolute: true },
      note: `the issue's bound is absolute: first render on screen (first contentful paint) < ${BOUND_MS} ms; page ${mib.toFixed(1)} MiB, ${data.steps} events`,
      details: {
        samples: r.toolledger,
        baseline: r.baseline,
        scriptDoneMs: ready.slice(-r.toolledger.length),
        pageBytes: Buffer.byteLength(html),
      },
    });
    const all = measured({
      id: "10b",
      name: "view of a 100k-event session: every event folded",
      unit: "ms",
      toolledger: foldedMedian,
      baseline: r.baselineMedian,
      baselineName,
      note: "every position's state ready for the scrubber; the fold runs in 100 ms slices after the first render",
      details: { samples: measuredFolds },
    });
    return [first, all];
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
