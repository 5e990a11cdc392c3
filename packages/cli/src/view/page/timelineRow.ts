import type { TimelineRow } from "../sessionTimeline.js";
import type { ViewData } from "../viewData.js";
import { h } from "./dom.js";

/** What a row's look depends on besides the row: the page's data and where the user is. */
export interface RowContext {
  data: ViewData;
  /** The conversation's own stream; other streams' rows are the registry's. */
  mainStream: string | undefined;
  selected: number | undefined;
  cursor: number;
  select: (index: number) => void;
}

/** One row of the timeline, at `top` pixels in the virtual list. */
export function renderRow(row: TimelineRow, top: number, ctx: RowContext): HTMLElement {
  const { data, mainStream, selected, cursor, select } = ctx;
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
