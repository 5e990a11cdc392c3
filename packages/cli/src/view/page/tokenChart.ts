import type { TokenPoint } from "../viewData.js";
import { svg } from "./dom.js";

const W = 1000;
const H = 100;

/** The point in force after `count` events (points are sorted by count). */
export function pointAt(points: readonly TokenPoint[], count: number): TokenPoint | undefined {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (points[mid]![0] <= count) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? undefined : points[lo - 1];
}

/**
 * Tokens over the session as two step lines: what the model received (filled) under what it
 * would have received with deferral off. One SVG column per 1/1000 of the session, so a
 * session of any length draws at most ~4,000 path segments.
 */
export class TokenChart {
  readonly element: SVGSVGElement;
  private readonly off: SVGPathElement;
  private readonly received: SVGPathElement;
  private readonly marker: SVGLineElement;
  private total = 0;

  constructor(onPick: (count: number) => void) {
    this.element = svg("svg", {
      viewBox: `0 0 ${W} ${H}`,
      preserveAspectRatio: "none",
      class: "chart",
    });
    this.element.setAttribute("data-testid", "token-chart");
    this.off = svg("path", {
      fill: "var(--chart-off)",
      "fill-opacity": 0.35,
      stroke: "var(--chart-off)",
      "stroke-width": 1.5,
      "vector-effect": "non-scaling-stroke",
    });
    this.received = svg("path", {
      fill: "var(--chart-rx)",
      "fill-opacity": 0.35,
      stroke: "var(--chart-rx)",
      "stroke-width": 1.5,
      "vector-effect": "non-scaling-stroke",
    });
    this.marker = svg("line", {
      y1: 0,
      y2: H,
      stroke: "var(--accent)",
      "stroke-width": 1.5,
      "vector-effect": "non-scaling-stroke",
    });
    this.element.append(this.off, this.received, this.marker);
    let dragging = false;
    const pick = (e: PointerEvent) => {
      const r = this.element.getBoundingClientRect();
      const x = Math.min(1, Math.max(0, (e.clientX - r.left) / r.width));
      onPick(Math.round(x * this.total));
    };
    this.element.addEventListener("pointerdown", (e) => {
      dragging = true;
      this.element.setPointerCapture(e.pointerId);
      pick(e);
    });
    this.element.addEventListener("pointermove", (e) => {
      if (dragging) pick(e);
    });
    this.element.addEventListener("pointerup", () => {
      dragging = false;
    });
  }

  /** Redraws for `total` events. */
  draw(points: readonly TokenPoint[], total: number): void {
    this.total = total;
    let max = 1;
    for (const p of points) max = Math.max(max, p[1], p[2]);
    const x = (count: number) => (total === 0 ? 0 : (count / total) * W);
    const y = (tokens: number) => H - (tokens / max) * (H - 4);
    const path = (pick: (p: TokenPoint) => number) => {
      const d: string[] = [`M0 ${H}`];
      let lastX = -1;
      let last = 0;
      for (const p of points) {
        const px = Math.round(x(p[0]) * 4) / 4;
        const v = y(pick(p));
        if (px === lastX) d.push(`L${px} ${v}`);
        else d.push(`L${px} ${last}`, `L${px} ${v}`);
        lastX = px;
        last = v;
      }
      d.push(`L${W} ${last}`, `L${W} ${H}`, "Z");
      return d.join("");
    };
    this.off.setAttribute("d", points.length === 0 ? "" : path((p) => p[2]));
    this.received.setAttribute("d", points.length === 0 ? "" : path((p) => p[1]));
  }

  mark(count: number): void {
    const px = this.total === 0 ? 0 : (count / this.total) * W;
    this.marker.setAttribute("x1", String(px));
    this.marker.setAttribute("x2", String(px));
  }
}
