import type { SessionTimeline, TimelineRow } from "../sessionTimeline.js";
import { fill, h } from "./dom.js";
import { formatCount } from "./formatCount.js";

/** The timeline's filters: event kinds, extension, problems only, and a text search. */
export class TimelineFilters {
  readonly element: HTMLElement;
  readonly #kinds: HTMLElement;
  readonly #extSelect: HTMLSelectElement;
  readonly #shown: HTMLElement;
  readonly #changed: () => void;
  readonly #hiddenTypes = new Set<string>();
  #extension = "";
  #problemsOnly = false;
  #query = "";
  readonly #typeCounts = new Map<string, number>();
  readonly #extensions = new Set<string>();
  #counted = 0;

  /** `changed` runs whenever the user changes a filter. */
  constructor(changed: () => void) {
    this.#changed = changed;
    const kinds = h("span", { "data-testid": "kind-filters" });
    const extSelect = h("select", { "data-testid": "extension-filter", "aria-label": "extension" });
    const search = h("input", {
      type: "search",
      placeholder: "search text",
      "aria-label": "search",
      "data-testid": "search",
    });
    const shown = h("span", { class: "count", "data-testid": "shown-count" });
    this.element = h(
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
            this.#problemsOnly = (e.target as HTMLInputElement).checked;
            changed();
          },
        }),
        " problems only",
      ),
      search,
      shown,
    );
    extSelect.addEventListener("change", () => {
      this.#extension = extSelect.value;
      changed();
    });
    search.addEventListener("input", () => {
      this.#query = search.value.toLowerCase();
      changed();
    });
    this.#kinds = kinds;
    this.#extSelect = extSelect;
    this.#shown = shown;
  }

  /** Kind and extension filters grow as the fold proceeds (kinds from newer builds included). */
  updateChoices(timeline: SessionTimeline): void {
    const typeCounts = this.#typeCounts;
    const extensions = this.#extensions;
    const hiddenTypes = this.#hiddenTypes;
    const before = typeCounts.size;
    const extBefore = extensions.size;
    for (; this.#counted < timeline.length; this.#counted++) {
      const row = timeline.rows[this.#counted]!;
      typeCounts.set(row.type, (typeCounts.get(row.type) ?? 0) + 1);
      for (const x of row.extensions) extensions.add(x);
    }
    fill(
      this.#kinds,
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
              this.#changed();
            },
          }),
          ` ${type} `,
          h("span", { class: "count" }, count),
        ),
      ),
    );
    if (extensions.size !== extBefore || before === 0) {
      fill(
        this.#extSelect,
        h("option", { value: "" }, "all extensions"),
        ...[...extensions]
          .sort()
          .map((x) => h("option", { value: x, selected: x === this.#extension }, x)),
      );
    }
  }

  matches(row: TimelineRow): boolean {
    const extension = this.#extension;
    const query = this.#query;
    if (this.#hiddenTypes.has(row.type)) return false;
    if (extension !== "" && !row.extensions.includes(extension)) return false;
    if (this.#problemsOnly && row.severity !== "warn" && row.severity !== "error") return false;
    if (
      query !== "" &&
      !`${row.position} ${row.type} ${row.extensions.join(" ")} ${row.text}`
        .toLowerCase()
        .includes(query)
    )
      return false;
    return true;
  }

  /** How many rows the filters let through, when not all. */
  showCount(shown: number, total: number): void {
    this.#shown.textContent = shown === total ? "" : `${formatCount(shown)} shown`;
  }
}
