// Takes the README's screenshot of a page written by `toolledger view`, in Debian's Chromium:
//   node packages/cli/scripts/screenshotView.mjs <page.html> <out.png> [position]
// With a position, the scrubber is moved there first and that event is selected.
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const [page, out, position] = process.argv.slice(2);
if (!page || !out) {
  process.stderr.write("usage: screenshotView.mjs <page.html> <out.png> [position]\n");
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
try {
  const tab = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await tab.goto(pathToFileURL(page).href);
  await tab.waitForSelector("html[data-folded]", { timeout: 60_000 });
  if (position) {
    await tab.locator(`[data-testid=timeline] .row[data-position="${position}"]`).first().click();
  }
  await tab.screenshot({ path: out });
} finally {
  await browser.close();
}
