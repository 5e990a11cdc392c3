#!/usr/bin/env node
// A headless $BROWSER for tests (A1): opens the authorization URL as a browser would, follows
// the authorization server's redirects (its consent is automatic in the test servers) and
// delivers the final redirect to toolledger's loopback callback. Writes one line per hop to
// $HEADLESS_BROWSER_LOG when set (URLs without query: no code is written).
import { appendFileSync } from "node:fs";

const log = (line) => {
  if (process.env.HEADLESS_BROWSER_LOG)
    appendFileSync(process.env.HEADLESS_BROWSER_LOG, `${line}\n`);
};

let url = process.argv.at(-1);
if (!url) {
  process.stderr.write("usage: headlessBrowser.mjs <url>\n");
  process.exit(2);
}
for (let hop = 0; hop < 10; hop++) {
  const response = await fetch(url, { redirect: "manual" });
  const at = new URL(url);
  log(`${response.status} ${at.origin}${at.pathname}`);
  const location = response.headers.get("location");
  await response.body?.cancel();
  if (response.status < 300 || response.status >= 400 || !location) break;
  url = new URL(location, url).href;
}
