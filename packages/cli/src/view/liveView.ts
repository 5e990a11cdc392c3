import type { IncomingMessage, ServerResponse } from "node:http";
import type { EventStore } from "@toolledger/core";
import type { LogEntry } from "../session/logEntry.js";
import { readSessionEntries } from "../session/readSession.js";
import { buildViewData, tokenSeries } from "./buildViewData.js";
import { renderViewHtml, scriptSafeJson } from "./renderViewHtml.js";
import type { ViewRule } from "./ruleCatalog.js";
import type { LiveUpdate } from "./viewData.js";
import { toViewEntries } from "./viewEntries.js";

export interface LiveViewOptions {
  store: EventStore;
  /** The database, for the pages' source line. */
  db: string;
  version: string;
  now: () => Date;
  rules: Record<string, ViewRule>;
  /** The streams this process serves (its registry stream, then its conversations): nothing else is shown. */
  streams: () => readonly string[];
  /** How often an open page's streams are checked for new events. Default 300 ms. */
  pollMs?: number;
  onError?: (error: Error) => void;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/**
 * `serve --view`: the view of the sessions this gateway serves, live. `/view` lists them,
 * `/view/<id>` is the same page `toolledger view` writes, and `/view/<id>/events` streams the
 * events appended since (server-sent events), which the page folds as they come.
 */
export function liveViewRoutes(
  options: LiveViewOptions,
): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> {
  const pollMs = options.pollMs ?? 300;
  return async (req, res, url) => {
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    if (parts[0] !== "view" || parts.length > 3) return false;
    if (req.method !== "GET") {
      res.writeHead(405, { allow: "GET", "content-type": "text/plain" }).end("GET only\n");
      return true;
    }
    const id = parts[1];
    if (id === undefined) {
      send(res, 200, indexPage(options.streams(), options.version));
      return true;
    }
    if (!options.streams().includes(id)) {
      res
        .writeHead(404, { "content-type": "text/plain" })
        .end(`this gateway serves no session ${id}\n`);
      return true;
    }
    if (parts.length === 2) {
      const entries = await readSessionEntries(options.store, id);
      const data = buildViewData(entries, {
        title: id,
        source: `session ${id} in ${options.db} (live)`,
        version: options.version,
        now: options.now(),
        rules: options.rules,
        live: { events: `/view/${encodeURIComponent(id)}/events?from=${entries.length}` },
      });
      send(res, 200, renderViewHtml(data));
      return true;
    }
    if (parts[2] !== "events") return false;
    streamUpdates(req, res, options, id, Number(url.searchParams.get("from") ?? 0), pollMs);
    return true;
  };
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.end(html);
}

function streamUpdates(
  req: IncomingMessage,
  res: ServerResponse,
  options: LiveViewOptions,
  id: string,
  from: number,
  pollMs: number,
): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-store",
    connection: "keep-alive",
  });
  res.write(": toolledger live view\n\n");
  let sent = Number.isFinite(from) && from >= 0 ? from : 0;
  let streams: string[] = [id];
  let versions = "";
  let busy = false;
  const check = async () => {
    if (busy) return;
    busy = true;
    try {
      // Cheap first: the streams' versions; the session is read again only when one moved.
      const now = (await Promise.all(streams.map((s) => options.store.streamVersion(s)))).join(",");
      if (now === versions) return;
      versions = now;
      const entries: LogEntry[] = await readSessionEntries(options.store, id);
      streams = [...new Set([id, ...entries.flatMap((e) => (e.streamId ? [e.streamId] : []))])];
      if (entries.length <= sent) return;
      const table = toViewEntries(entries, { intern: false });
      const { points, steps } = tokenSeries(entries);
      const update: LiveUpdate = {
        entries: table.entries.slice(sent),
        streams: table.streams,
        steps,
        points,
      };
      sent = entries.length;
      res.write(`event: update\ndata: ${scriptSafeJson(update)}\n\n`);
    } catch (error) {
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void check(), pollMs);
  void check();
  const stop = () => clearInterval(timer);
  req.once("close", stop);
  res.once("close", stop);
}

function indexPage(streams: readonly string[], version: string): string {
  const [registry, ...conversations] = streams;
  const link = (id: string) =>
    `<li><a href="/view/${encodeURIComponent(id)}">${escapeHtml(id)}</a></li>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">
<title>toolledger live view</title>
<style>body{font:14px/1.5 system-ui,sans-serif;margin:24px;color:#1d2330}code,a{font-family:ui-monospace,monospace}</style>
</head><body>
<h1>toolledger ${escapeHtml(version)}: sessions this gateway serves</h1>
<h2>Conversations</h2>
${conversations.length === 0 ? "<p>none yet: a client that connects opens one (C2)</p>" : `<ul>${conversations.map(link).join("")}</ul>`}
<h2>Registry</h2>
<ul>${registry === undefined ? "" : link(registry)}</ul>
<p>Each page updates as events arrive; <code>toolledger view &lt;id&gt;</code> writes the same page to a file.</p>
</body></html>
`;
}
