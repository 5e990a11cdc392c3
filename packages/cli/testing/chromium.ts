import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it), or $CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Why the browser tests cannot run here (no Chromium), or null. Under CI that is an error
 * (CI must run them for real: `.ci/run` installs Chromium); elsewhere they are reported
 * skipped with this one-line reason, never silently passed.
 */
export function chromiumSkipReason(): string | null {
  if (existsSync(CHROMIUM)) return null;
  const reason = `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (process.env.CI) throw new Error(`browser tests cannot run under CI: ${reason}`);
  console.warn(`browser tests skipped: ${reason}`);
  return reason;
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's package (apt-get update && apt-get install -y chromium; bash .ci/run does it) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}

export interface WatchedPage {
  page: Page;
  /** Console errors and warnings, uncaught exceptions. */
  problems: string[];
  /** Every request the page made, other than for the file itself. */
  requests: string[];
}

/** A new page that records console errors, page errors and requests (nothing is blocked). */
export async function watchedPage(
  browser: Browser,
  viewport = { width: 1400, height: 900 },
): Promise<WatchedPage> {
  const page = await browser.newPage({ viewport });
  const problems: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("request", (r) => requests.push(r.url()));
  return { page, problems, requests };
}
