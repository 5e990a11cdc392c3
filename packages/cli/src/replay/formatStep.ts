import type { Output } from "../output/output.js";
import { formatChange } from "./formatChange.js";
import type { ReplayStep } from "./replaySteps.js";

/** One replay step: position, type, then one line per change, aligned under each other. */
export function formatStep(step: ReplayStep, width: number, o: Output): string {
  const at =
    step.label === undefined ? String(step.position) : o.out.dim(step.label.padStart(width));
  const head = `${step.label === undefined ? at.padStart(width) : at}  ${o.out.cyan(step.type.padEnd(20))}  `;
  const indent = " ".repeat(width + 2 + 20 + 2);
  return step.changes.map((c, i) => (i === 0 ? head : indent) + formatChange(c, o.out)).join("\n");
}

/** The column width that fits every position and label of a log. */
export function stepWidth(entries: readonly { position: number; label?: string }[]): number {
  let w = 1;
  for (const e of entries) w = Math.max(w, (e.label ?? String(e.position)).length);
  return w;
}
