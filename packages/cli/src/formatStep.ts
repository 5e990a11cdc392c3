import { formatChange } from "./formatChange.js";
import type { Output } from "./output.js";
import type { ReplayStep } from "./replaySteps.js";

/** One replay step: position, type, then one line per change, aligned under each other. */
export function formatStep(step: ReplayStep, width: number, o: Output): string {
  const head = `${String(step.position).padStart(width)}  ${o.out.cyan(step.type.padEnd(20))}  `;
  const indent = " ".repeat(width + 2 + 20 + 2);
  return step.changes.map((c, i) => (i === 0 ? head : indent) + formatChange(c, o.out)).join("\n");
}
