import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CliError } from "../program/cliError.js";
import { conversationStreamOf } from "../session/conversationEntries.js";
import { VIEW_DATA_ID, VIEW_REST_ID, type ViewData, type ViewRest } from "./viewData.js";
import { fromViewEntry } from "./viewEntries.js";
import { VIEW_STYLES } from "./viewStyles.js";

/** The page's script, bundled by `pnpm build` (scripts/bundleViewPage.mjs) with the core inside. */
export function pageScriptPath(): string {
  // src/view and dist/view are both two levels below the package.
  return fileURLToPath(new URL("../../dist/view/page.bundle.js", import.meta.url));
}

let script: string | undefined;

export function readPageScript(): string {
  if (script !== undefined) return script;
  const path = pageScriptPath();
  if (!existsSync(path)) {
    throw new CliError("notFound", `the view's page script is missing (${path})`, {
      hint: "run `pnpm build` at the workspace root; it bundles the page",
    });
  }
  script = readFileSync(path, "utf8");
  if (/<\/script/i.test(script))
    throw new Error(`${path} contains "</script": it cannot be inlined`);
  return script;
}

/** JSON that can sit inside a `<script>` element: `<` never appears raw. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

/** Entries the page describes before the rest of the data is parsed: more than a screen of rows. */
export const HEAD_ENTRIES = 200;

/**
 * The page's data in two parts: the head (everything but the entries after the first
 * `HEAD_ENTRIES` and the tools only they list) sits before the page's script, the rest after
 * it, so the page shows its first screen while the browser still reads the rest. Tool indexes
 * stay global (the rest's tools follow the head's). A conversation log whose head would not
 * show it as one (no `ConversationStarted` of its stream yet) is not split: the head's fold
 * must be the first steps of the whole log's.
 */
export function splitViewData(data: ViewData): { head: ViewData; rest: ViewRest } {
  const none = { head: data, rest: { entries: [], tools: [] } };
  if (data.entries.length <= HEAD_ENTRIES) return none;
  const entries = data.entries.slice(0, HEAD_ENTRIES);
  const conversation = (list: ViewData["entries"]) =>
    conversationStreamOf(list.map((v) => fromViewEntry(v, data)));
  if (conversation(entries) !== conversation(data.entries)) return none;
  let tools = 0;
  for (const v of entries) for (const i of v.k ?? []) tools = Math.max(tools, i + 1);
  return {
    head: { ...data, entries, tools: data.tools.slice(0, tools) },
    rest: { entries: data.entries.slice(HEAD_ENTRIES), tools: data.tools.slice(tools) },
  };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/**
 * The whole page: data, styles and script inline. The Content-Security-Policy allows this one
 * script (by hash) and no request at all (a live page: its own event stream).
 */
export function renderViewHtml(data: ViewData, pageScript: string = readPageScript()): string {
  const hash = createHash("sha256").update(pageScript).digest("base64");
  const { head, rest } = splitViewData(data);
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${hash}'`,
    "style-src 'unsafe-inline'",
    "img-src data:",
    // Only a page `serve --view` serves live reads its event stream, from where it came.
    `connect-src ${data.live === undefined ? "'none'" : "'self'"}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="toolledger ${escapeHtml(data.version)}">
<title>${escapeHtml(data.title)} · toolledger view</title>
<style>${VIEW_STYLES}</style>
</head>
<body>
<noscript>This page shows a toolledger session and needs JavaScript (no network access is used).</noscript>
<div id="app"></div>
<script id="${VIEW_DATA_ID}" type="application/json">${scriptSafeJson(head)}</script>
<script>${pageScript}</script>
<script id="${VIEW_REST_ID}" type="application/json">${scriptSafeJson(rest)}</script>
</body>
</html>
`;
}
