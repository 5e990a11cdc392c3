import { EVENT_TYPES, modelView } from "@toolledger/core";
import { lookupSaving } from "../../output/lookupSaving.js";
import { createStyle } from "../../output/style.js";
import { summarizeState } from "../../output/summarizeState.js";
import { diffStates } from "../../replay/diffStates.js";
import { formatChange } from "../../replay/formatChange.js";
import type { AnyEvent } from "../eventDescription.js";
import type { SessionTimeline, TimelineRow } from "../sessionTimeline.js";
import type { ViewData } from "../viewData.js";
import { fill, h } from "./dom.js";
import { formatCount } from "./formatCount.js";
import { pinDiff } from "./pinDiff.js";
import { pointAt } from "./tokenChart.js";

const plain = createStyle(false);
const LIST_CAP = 200;

/** A list of names, the first 200 shown and a button for the rest. */
function names(testid: string, items: readonly string[]): HTMLElement {
  if (items.length === 0) return h("div", { class: "none", "data-testid": testid }, "none");
  const ul = h("ul", { class: "names", "data-testid": testid });
  const show = (n: number) => {
    ul.replaceChildren(...items.slice(0, n).map((name) => h("li", {}, name)));
    if (items.length > n) {
      ul.appendChild(
        h(
          "li",
          { class: "none" },
          h(
            "button",
            { class: "more", onclick: () => show(items.length) },
            `… ${items.length - n} more`,
          ),
        ),
      );
    }
  };
  show(LIST_CAP);
  return ul;
}

const n = formatCount;

/** What the scrubber shows: the state after `count` events, as `replay --to` computes it. */
export function renderState(
  el: HTMLElement,
  timeline: SessionTimeline,
  count: number,
  includeHidden: boolean,
): void {
  const state = timeline.stateAfter(count);
  const summary = summarizeState(state, { includeHidden });
  const view = modelView(state);
  const last = count === 0 ? undefined : timeline.rows[count - 1];
  fill(
    el,
    h(
      "div",
      { "data-testid": "state-heading" },
      h("b", {}, last ? `State after position ${last.position}` : "State before the first event"),
      last ? ` (${last.type})` : "",
      ` · version ${summary.version} · deferral ${summary.deferral.mode}`,
      summary.deferral.alwaysLoad.length > 0
        ? ` (always load: ${summary.deferral.alwaysLoad.join(", ")})`
        : "",
    ),
    h("h2", {}, "Model view"),
    h("div", {}, `Eager: full schemas (${view.tools.length})`),
    names(
      "eager",
      view.tools.map((t) => t.name),
    ),
    h("div", { style: "margin-top:6px" }, `Deferred: names only (${view.deferred.length})`),
    names("deferred", view.deferred),
    view.systemPrompt === null
      ? null
      : h(
          "details",
          {},
          h("summary", {}, "prompt section"),
          h("pre", { class: "json" }, view.systemPrompt),
        ),
    h("h2", {}, "Enabled"),
    names("enabled", summary.enabled),
    h("h2", {}, "Pending enable requests"),
    summary.pending.length === 0
      ? h("div", { class: "none", "data-testid": "pending" }, "none")
      : h(
          "ul",
          { class: "names", "data-testid": "pending" },
          ...summary.pending.map((p) => h("li", {}, `${p.callId}: ${p.names.join(", ")}`)),
        ),
    h("h2", {}, `Extensions (${summary.extensions.length})`),
    summary.extensions.length === 0
      ? h("div", { class: "none", "data-testid": "extensions" }, "none")
      : h(
          "table",
          { "data-testid": "extensions" },
          h(
            "tr",
            {},
            h("th", {}, "key"),
            h("th", {}, "kind"),
            h("th", {}, "fetch"),
            h("th", {}, "tools"),
            h("th", {}, ""),
          ),
          ...summary.extensions.map((e) =>
            h(
              "tr",
              {},
              h("td", {}, e.key),
              h("td", {}, e.kind),
              h("td", {}, e.fetch + (e.stale ? " (stale)" : "")),
              h("td", {}, String(e.tools)),
              h("td", {}, e.hidden ? "hidden" : ""),
            ),
          ),
        ),
    summary.hiddenOmitted.extensions > 0
      ? h(
          "div",
          { class: "none" },
          `${summary.hiddenOmitted.extensions} hidden extension(s) with ${summary.hiddenOmitted.tools} tool(s) not shown (R8)`,
        )
      : null,
    summary.tools.some((t) => t.class === "app-only")
      ? h(
          "div",
          {},
          "App-only (never shown to the model, D3): ",
          names(
            "app-only",
            summary.tools.filter((t) => t.class === "app-only").map((t) => t.name),
          ),
        )
      : null,
    h("h2", {}, `Diagnostics (${summary.diagnostics.length})`),
    summary.diagnostics.length === 0
      ? h("div", { class: "none", "data-testid": "diagnostics" }, "none")
      : h(
          "ul",
          { class: "diag", "data-testid": "diagnostics" },
          ...summary.diagnostics.map((d) => h("li", {}, d.message)),
        ),
  );
}

/** The token figure beside the chart: what the model received after `count` events. */
export function renderTokenFigure(el: HTMLElement, data: ViewData, count: number): void {
  const point = pointAt(data.tokens.points, count);
  const saved = point && point[2] > 0 ? Math.round((1 - point[1] / point[2]) * 100) : 0;
  fill(
    el,
    point
      ? point[3] !== undefined
        ? h(
            "span",
            {
              "data-testid": "tokens",
              "data-received": point[1],
              "data-off": point[2],
              "data-lookup": point[3],
            },
            h("b", {}, `${n(point[1])} tokens`),
            ` of tool definitions sent with deferral off; ${lookupSaving(point[2], point[3])}`,
          )
        : h(
            "span",
            { "data-testid": "tokens", "data-received": point[1], "data-off": point[2] },
            h("b", {}, `${n(point[1])} tokens`),
            ` of tool definitions sent; ${n(point[2])} with deferral off`,
            point[2] > point[1] ? ` (${saved}% saved)` : "",
          )
      : "no tools yet",
  );
}

/** The selected event: what it changed (as `replay` prints it), its rules, its relations, its JSON. */
export function renderDetail(
  el: HTMLElement,
  timeline: SessionTimeline,
  data: ViewData,
  row: TimelineRow | undefined,
  select: (index: number) => void,
): void {
  if (row === undefined) {
    fill(el, h("div", { class: "none" }, "Click an event in the timeline to see what it changed."));
    return;
  }
  const before = timeline.stateAfter(row.index);
  const after = timeline.stateAfter(row.index + 1);
  const event = timeline.entries[row.index]!.event;
  const changes = isKnown(event)
    ? diffStates(before, after, event as never).map((c) => formatChange(c, plain))
    : [];
  const link = (i: number, label: string) =>
    h(
      "a",
      {
        href: "#",
        onclick: (e: Event) => {
          e.preventDefault();
          select(i);
        },
      },
      label,
    );
  fill(
    el,
    h("h2", {}, `Event at position ${row.position}: ${row.type}`),
    h("div", { class: "mono", "data-testid": "detail-text" }, row.text),
    row.at ? h("div", { class: "none" }, row.at) : null,
    changes.length > 0
      ? h("ul", { class: "changes mono" }, ...changes.map((c) => h("li", {}, c)))
      : null,
    row.related !== undefined
      ? h(
          "div",
          {},
          "follows ",
          link(
            row.related,
            `#${timeline.rows[row.related]!.position} ${timeline.rows[row.related]!.type}`,
          ),
        )
      : null,
    row.followers?.length
      ? h(
          "div",
          {},
          "followed by ",
          ...row.followers.map((i) =>
            link(i, `#${timeline.rows[i]!.position} ${timeline.rows[i]!.type} `),
          ),
        )
      : null,
    row.rules.length > 0
      ? h(
          "div",
          { class: "rules" },
          ...row.rules.map((id) => {
            const r = data.rules[id];
            return h(
              "div",
              {},
              r?.href ? h("a", { href: r.href, target: "_blank" }, id) : h("b", {}, id),
              ` ${r?.title ?? ""}: ${r?.summary ?? ""}`,
            );
          }),
        )
      : null,
    pinDiff(event, before),
    h("pre", { class: "json" }, JSON.stringify(event, null, 2)),
  );
}

// A kind this build's core does not fold has no replay diff.
const isKnown = (event: AnyEvent) => (EVENT_TYPES as readonly string[]).includes(event.type);
