import { type FoldedEntry, foldEntries } from "../../session/foldEntries.js";
import { SessionTimeline } from "../sessionTimeline.js";
import { VIEW_DATA_ID, VIEW_REST_ID, type ViewData, type ViewRest } from "../viewData.js";
import { fromViewEntry } from "../viewEntries.js";
import { fill, h } from "./dom.js";
import { followLive } from "./followLive.js";
import { formatCount } from "./formatCount.js";
import { lowerBound } from "./lowerBound.js";
import { renderDetail, renderState, renderTokenFigure } from "./statePanel.js";
import { TimelineFilters } from "./timelineFilters.js";
import { renderRow } from "./timelineRow.js";
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
  // The fold runs in slices between frames: the page is usable after the first slice. The
  // data's head is here; the rest is read once the document is parsed (see splitViewData).
  const log = data.entries.map((v) => fromViewEntry(v, data));
  let steps = foldEntries(log);
  data.entries = [];
  let finished = false;
  let haveRest = false;
  /** The head is folded and the rest not read yet: the slices wait for it. */
  let waiting = false;
  let total = data.steps;
  const readRest = () => {
    const el = document.getElementById(VIEW_REST_ID);
    if (el !== null) {
      const rest = JSON.parse(el.textContent!) as ViewRest;
      for (const tool of rest.tools) data.tools.push(tool);
      for (const v of rest.entries) log.push(fromViewEntry(v, data));
      // The fold of the whole log begins with the head's: only the steps after it are added.
      steps = foldEntries(log);
      for (let i = 0; i < timeline.length; i++) steps.next();
    }
    haveRest = true;
    if (waiting) {
      // The slices stopped for the rest: they go on (after the first frame's task, which
      // starts them itself).
      waiting = false;
      if (!firstFrame) channel.port2.postMessage(0);
    }
  };
  /** Folds batches of `size` events for `budgetMs` (at least one batch). */
  const foldSome = (budgetMs: number, size = 512) => {
    const until = performance.now() + budgetMs;
    do {
      const batch: FoldedEntry[] = [];
      for (let i = 0; i < size; i++) {
        const next = steps.next();
        if (next.done) {
          if (haveRest) finished = true;
          else waiting = true;
          break;
        }
        batch.push(next.value);
      }
      timeline.append(batch);
    } while (!finished && !waiting && performance.now() < until);
  };
  // The first render describes the events of the timeline's first screen; the rest follows.
  foldSome(0, Math.ceil(window.innerHeight / ROW_HEIGHT) + 20);
  const app = document.getElementById("app")!;

  let following = true;
  let cursor = timeline.length;
  let selected: number | undefined;
  let includeHidden = false;

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

  const filters = new TimelineFilters(() => applyFilters());

  const listEl = h("div", { class: "list", tabindex: 0, "data-testid": "timeline" });
  const list = new VirtualList(listEl, ROW_HEIGHT, (index, top) =>
    renderRow(timeline.rows[index]!, top, { data, mainStream, selected, cursor, select }),
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
  const tokenFigure = h("div", { class: "figure" });
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
      tokenFigure,
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

  fill(app, header, h("main", {}, h("div", { class: "left" }, filters.element, listEl), right));

  /** Kind and extension filters grow as the fold proceeds (kinds from newer builds included). */
  function updateFilterChoices(): void {
    filters.updateChoices(timeline);
    eventsCount.textContent = `${formatCount(total)} events`;
    progress.textContent =
      timeline.length < total
        ? `reading events: ${Math.floor((timeline.length / total) * 100)}%`
        : "";
  }

  function applyFilters(): void {
    const out = new Int32Array(timeline.length);
    let k = 0;
    for (const row of timeline.rows) if (filters.matches(row)) out[k++] = row.index;
    filtered = out.subarray(0, k);
    list.setItems(filtered);
    filters.showCount(k, timeline.length);
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
    renderTokenFigure(tokenFigure, data, cursor);
    showState();
    list.refresh();
  }

  // The state panel is not part of the first frame: it is drawn in the first task after it.
  let firstFrame = true;
  let stateDue = false;
  function showState(): void {
    if (firstFrame) stateDue = true;
    else renderState(stateEl, timeline, cursor, includeHidden);
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
      live.textContent = `● live: ${formatCount(timeline.length)} events`;
    });
  const done = () => {
    view.foldedMs = performance.now();
    document.documentElement.dataset.folded = "true";
    if (data.live) follow(data.live.events);
  };
  // After the first frame: the state panel, then the fold in slices between frames. While
  // folding, the list and counts catch up every half second; the state panel shows the end
  // once everything is folded (or whatever position the user picks meanwhile).
  const channel = new MessageChannel();
  let caughtUp = performance.now();
  channel.port1.onmessage = () => {
    if (firstFrame) {
      firstFrame = false;
      if (stateDue) showState();
      if (finished) done();
      else if (!waiting) channel.port2.postMessage(0);
      return;
    }
    foldSome(100);
    if (waiting) return;
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
  // A message posted from an animation frame callback runs after that frame is painted; a
  // page that is not shown gets no frames, and the timer starts it.
  let started = false;
  const afterFirstFrame = () => {
    if (started) return;
    started = true;
    channel.port2.postMessage(0);
  };
  requestAnimationFrame(afterFirstFrame);
  setTimeout(afterFirstFrame, 1000);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", readRest);
  else readRest();
}

function run(): void {
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
}

// The page starts as soon as its script is parsed, with the data's head (the rest follows it).
run();
