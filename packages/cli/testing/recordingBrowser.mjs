#!/usr/bin/env node
// A $BROWSER for tests of a user who is slow to authorize (A4): it only writes the URL it was
// given to $BROWSER_URL_FILE; the test opens it later (with headlessBrowser.mjs).
import { appendFileSync } from "node:fs";

appendFileSync(process.env.BROWSER_URL_FILE ?? "browser-urls.txt", `${process.argv.at(-1)}\n`);
