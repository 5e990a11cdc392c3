import { type FoldedEntry, foldEntries } from "../../foldEntries.js";
import type { LogEntry } from "../../logEntry.js";
import { SessionTimeline, type TimelineRow } from "../sessionTimeline.js";
import { type LiveUpdate, VIEW_DATA_ID, type ViewData } from "../viewData.js";
import { fromViewEntry } from "../viewEntries.js";
import { fill, h } from "./dom.js";
import { renderDetail, renderState } from "./statePanel.js";
import { TokenChart } from "./tokenChart.js";
import { VirtualList } from "./virtualList.js";

const ROW_HEIGHT = 22;

declare global {
  interface Window {
    /** Read by the browser tests: how long the first render and the whole fold took, and the cursor. */
    toolledgerView?: {
      /** Milliseconds from navigation to the first render (timeline and scrubber usable). */
      readyMs: number;
      /** Milliseconds from navigation until every event was folded; undefined while folding. */
      foldedMs?: number;
      cursor: () => number;
    };
  }
}

function start(): void {
  performance.mark("toolledger:start");
  const text = document.getElementById(VIEW_DATA_ID)!.textContent!;
  performance.mark("toolledger:text");
  const data = JSON.parse(text) as ViewData;
  performance.mark("toolledger:parsed");
  const timeline = new SessionTimeline();
  const mainStream = data.streams[0];
  // The fold runs in slices between frames: the page is usable after the first slice.
  const log = data.entries.map((v) => fromViewEntry(v, data));
  const steps = foldEntries(log);
  data.entries = [];
  let finished = false;
  let total = data.steps;
  const foldSome = (budgetMs: number) => {
    const until = performance.now() + budgetMs;
    while (!finished && performance.now() < until) {
      const batch: FoldedEntry[] = [];
      for (let i = 0; i < 512; i++) {
        const next = steps.next();
        if (next.done) {
          finished = true;
          break;
        }
        batch.push(next.value);
      }
      timeline.append(batch);
    }
  };
  foldSome(200);
  const app = document.getElementById("app")!;

  let following = true;
  let cursor = timeline.length;
  let selected: number | undefined;
  let includeHidden = false;
  const hiddenTypes = new Set<string>();
  let extension = "";
  let problemsOnly = false;
  let query = "";

  // Header
  const eventsCount = h("span", { "data-testid": "event-count" });
  const progress = h("span", { class: "meta", "data-testid": "progress" });
  const live = h("span", { class: "live", "data-testid": "live" }, data.live ? "● live" : "");
  const header = h(
    "header",
    {},
    h("h1", {}, `toolledger · ${data.title}`),
    h(
      "span",
      { class: "meta" },
      eventsCount,
      ` · ${data.source} · written ${data.generatedAt} by toolledger ${data.version}`,
    ),
    progress,
    live,
  );

  // Filters
  const kinds = h("span", { "data-testid": "kind-filters" });
  const extSelect = h("select", { "data-testid": "extension-filter", "aria-label": "extension" });
  const search = h("input", {
    type: "search",
    placeholder: "search text",
    "aria-label": "search",
    "data-testid": "search",
  });
  const shown = h("span", { class: "count", "data-testid": "shown-count" });
  const filters = h(
    "div",
    { class: "filters" },
    kinds,
    extSelect,
    h(
      "label",
      {},
      h("input", {
        type: "checkbox",
        "data-testid": "problems-only",
        onchange: (e: Event) => {
          problemsOnly = (e.target as HTMLInputElement).checked;
          applyFilters();
        },
      }),
      " problems only",
    ),
    search,
    shown,
  );
  extSelect.addEventListener("change", () => {
    extension = extSelect.value;
    applyFilters();
  });
  search.addEventListener("input", () => {
    query = search.value.toLowerCase();
    applyFilters();
  });

  const listEl = h("div", { class: "list", tabindex: 0, "data-testid": "timeline" });
  const list = new VirtualList(listEl, ROW_HEIGHT, (index, top) =>
    renderRow(timeline.rows[index]!, top),
  );
  let filtered = new Int32Array(0);

  // Scrubber and state
  const range = h("input", {
    type: "range",
    min: 0,
    step: 1,
    "data-testid": "scrubber",
    "aria-label": "position",
  });
  const positionInput = h("input", {
    type: "number",
    min: 0,
    "data-testid": "position",
    "aria-label": "position number",
  });
  const chart = new TokenChart((count) => setCursor(count, true));
  const stateEl = h("div", { "data-testid": "state" });
  const detailEl = h("div", { class: "detail", "data-testid": "detail" });
  const right = h(
    "div",
    { class: "right" },
    h(
      "div",
      { class: "scrubber" },
      h(
        "div",
        { class: "controls" },
        h("button", { onclick: () => setCursor(cursor - 1, true), title: "previous event" }, "◀"),
        h("button", { onclick: () => setCursor(cursor + 1, true), title: "next event" }, "▶"),
        "position ",
        positionInput,
        h(
          "label",
          {},
          h("input", {
            type: "checkbox",
            "data-testid": "include-hidden",
            onchange: (e: Event) => {
              includeHidden = (e.target as HTMLInputElement).checked;
              showState();
            },
          }),
          " include hidden (R8)",
        ),
      ),
      range,
    ),
    h(
      "div",
      { class: "tokens" },
      h("h2", {}, "What deferral saved"),
      h("div", { class: "figure", id: "tokens-figure" }),
      chart.element,
      h(
        "div",
        { class: "legend" },
        `green: tokens of the tool definitions the model received; grey: the same registry with deferral off. ${data.tokens.tokenizer} tokens, ${data.tokens.definition}.`,
      ),
    ),
    stateEl,
    detailEl,
  );
  range.addEventListener("input", () => {
    following = false;
    setCursor(Number(range.value), false);
  });
  positionInput.addEventListener("change", () => {
    following = false;
    setCursor(timeline.countThrough(Number(positionInput.value)), true);
  });

  fill(app, header, h("main", {}, h("div", { class: "left" }, filters, listEl), right));

  function renderRow(row: TimelineRow, top: number): HTMLElement {
    const cls = `row ${row.severity}${row.stream === mainStream ? "" : " reg"}${row.index === selected ? " sel" : ""}${row.index >= cursor ? " after" : ""}`;
    return h(
      "div",
      {
        class: cls,
        title: row.stream ?? "",
        style: `top:${top}px`,
        "data-index": row.index,
        "data-position": row.position,
        onclick: () => select(row.index),
      },
      h("span", { class: "pos" }, row.label),
      h("span", { class: "time" }, row.at ? row.at.slice(11, 23) : ""),
      h("span", { class: "type" }, row.type),
      row.extensions.length > 0 ? h("span", { class: "ext" }, row.extensions.join(",")) : null,
      h("span", { class: "text" }, row.text),
      ...row.rules.slice(0, 2).map((id) => {
        const r = data.rules[id];
        const title = r ? `${id} ${r.title}: ${r.summary}` : id;
        return r?.href
          ? h(
              "a",
              {
                class: "rule",
                href: r.href,
                target: "_blank",
                title,
                onclick: (e: Event) => e.stopPropagation(),
              },
              id,
            )
          : h("span", { class: "rule", title }, id);
      }),
    );
  }

  const typeCounts = new Map<string, number>();
  const extensions = new Set<string>();
  let counted = 0;

  /** Kind and extension filters grow as the fold proceeds (kinds from newer builds included). */
  function updateFilterChoices(): void {
    const before = typeCounts.size;
    const extBefore = extensions.size;
    for (; counted < timeline.length; counted++) {
      const row = timeline.rows[counted]!;
      typeCounts.set(row.type, (typeCounts.get(row.type) ?? 0) + 1);
      for (const x of row.extensions) extensions.add(x);
    }
    fill(
      kinds,
      ...[...typeCounts].map(([type, count]) =>
        h(
          "label",
          {},
          h("input", {
            type: "checkbox",
            checked: !hiddenTypes.has(type),
            "data-kind": type,
            onchange: (e: Event) => {
              if ((e.target as HTMLInputElement).checked) hiddenTypes.delete(type);
              else hiddenTypes.add(type);
              applyFilters();
            },
          }),
          ` ${type} `,
          h("span", { class: "count" }, count),
        ),
      ),
    );
    if (extensions.size !== extBefore || before === 0) {
      fill(
        extSelect,
        h("option", { value: "" }, "all extensions"),
        ...[...extensions]
          .sort()
          .map((x) => h("option", { value: x, selected: x === extension }, x)),
      );
    }
    eventsCount.textContent = `${total.toLocaleString("en-US")} events`;
    progress.textContent =
      timeline.length < total
        ? `reading events: ${Math.floor((timeline.length / total) * 100)}%`
        : "";
  }

  function matches(row: TimelineRow): boolean {
    if (hiddenTypes.has(row.type)) return false;
    if (extension !== "" && !row.extensions.includes(extension)) return false;
    if (problemsOnly && row.severity !== "warn" && row.severity !== "error") return false;
    if (
      query !== "" &&
      !`${row.position} ${row.type} ${row.extensions.join(" ")} ${row.text}`
        .toLowerCase()
        .includes(query)
    )
      return false;
    return true;
  }

  function applyFilters(): void {
    const out = new Int32Array(timeline.length);
    let k = 0;
    for (const row of timeline.rows) if (matches(row)) out[k++] = row.index;
    filtered = out.subarray(0, k);
    list.setItems(filtered);
    shown.textContent = k === timeline.length ? "" : `${k.toLocaleString("en-US")} shown`;
  }

  let pending = 0;
  let pendingCount = cursor;

  function setCursor(count: number, immediate: boolean): void {
    pendingCount = Math.max(0, Math.min(timeline.length, count));
    range.value = String(pendingCount);
    if (immediate) {
      showCursor();
      return;
    }
    if (pending === 0) pending = requestAnimationFrame(showCursor);
  }

  function showCursor(): void {
    if (pending !== 0) cancelAnimationFrame(pending);
    pending = 0;
    cursor = pendingCount;
    range.value = String(cursor);
    positionInput.value = String(cursor === 0 ? 0 : timeline.rows[cursor - 1]!.position);
    chart.mark(cursor);
    showState();
    list.refresh();
  }

  function showState(): void {
    renderState(stateEl, timeline, data, cursor, includeHidden);
  }

  function select(index: number): void {
    following = false;
    selected = index;
    renderDetail(detailEl, timeline, data, timeline.rows[index], select);
    const k = lowerBound(filtered, index);
    if (filtered[k] === index) list.scrollToItem(k);
    setCursor(index + 1, true);
  }

  listEl.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    e.preventDefault();
    const k =
      selected === undefined
        ? 0
        : lowerBound(filtered, selected) + (e.key === "ArrowDown" ? 1 : -1);
    const index = filtered[Math.max(0, Math.min(filtered.length - 1, k))];
    if (index !== undefined) select(index);
  });

  /** After a slice of the fold. */
  function grown(): void {
    range.max = String(timeline.length);
    updateFilterChoices();
    applyFilters();
    if (following) {
      setCursor(timeline.length, true);
      if (data.live) listEl.scrollTop = listEl.scrollHeight;
    }
  }

  chart.draw(data.tokens.points, total);
  grown();
  renderDetail(detailEl, timeline, data, undefined, select);
  const view: NonNullable<Window["toolledgerView"]> = {
    readyMs: performance.now(),
    cursor: () => cursor,
  };
  window.toolledgerView = view;
  document.documentElement.dataset.ready = "true";

  const follow = (url: string) =>
    followLive(url, data, log, timeline, (steps) => {
      total = steps;
      chart.draw(data.tokens.points, total);
      grown();
      live.textContent = `● live: ${timeline.length.toLocaleString("en-US")} events`;
    });
  const done = () => {
    view.foldedMs = performance.now();
    document.documentElement.dataset.folded = "true";
    if (data.live) follow(data.live.events);
  };
  if (finished) {
    done();
    return;
  }
  // While folding, the list and counts catch up every half second; the state panel shows the
  // end once everything is folded (or whatever position the user picks meanwhile).
  const channel = new MessageChannel();
  let caughtUp = performance.now();
  channel.port1.onmessage = () => {
    foldSome(100);
    if (finished || performance.now() - caughtUp > 500) {
      caughtUp = performance.now();
      const follow = following;
      following = following && finished;
      grown();
      following = follow;
    }
    if (!finished) channel.port2.postMessage(0);
    else done();
  };
  channel.port2.postMessage(0);
}

/** A live page (`serve --view`): later events arrive as server-sent events and are folded on. */
function followLive(
  url: string,
  data: ViewData,
  log: LogEntry[],
  timeline: SessionTimeline,
  grew: (steps: number) => void,
): void {
  const source = new EventSource(url);
  source.addEventListener("update", (e) => {
    const update = JSON.parse((e as MessageEvent<string>).data) as LiveUpdate;
    data.streams = update.streams;
    for (const v of update.entries) log.push(fromViewEntry(v, data));
    data.tokens.points = update.points;
    // The fold of a longer log begins with the fold of the shorter one: only new steps are added.
    let i = 0;
    const added: FoldedEntry[] = [];
    for (const step of foldEntries(log)) if (i++ >= timeline.length) added.push(step);
    timeline.append(added);
    grew(update.steps);
  });
}

function lowerBound(a: Int32Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

try {
  start();
} catch (error) {
  const app = document.getElementById("app");
  if (app)
    fill(
      app,
      h(
        "pre",
        { class: "json" },
        `toolledger view failed: ${(error as Error).stack ?? String(error)}`,
      ),
    );
  throw error;
}
