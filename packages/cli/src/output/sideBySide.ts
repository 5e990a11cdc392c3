import { lcsOps, splitLines } from "./unifiedDiff.js";

export interface SideBySideOptions {
  leftLabel: string;
  rightLabel: string;
  /** Total width; each side gets half, long lines wrap (nothing is cut off). */
  width: number;
}

/**
 * Two texts side by side, line aligned: `|` marks a changed line, `<` one only on the left,
 * `>` one only on the right. Lines longer than a column wrap, so a reviewer sees every
 * character of both definitions.
 */
export function sideBySide(left: string, right: string, options: SideBySideOptions): string {
  const column = Math.max(20, Math.floor((options.width - 3) / 2));
  const ops = lcsOps(splitLines(left), splitLines(right));
  const rows: [string, string, string][] = [];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op.kind === " ") rows.push([op.line, " ", op.line]);
    else if (op.kind === "-" && ops[i + 1]?.kind === "+") {
      rows.push([op.line, "|", ops[i + 1]!.line]);
      i++;
    } else if (op.kind === "-") rows.push([op.line, "<", ""]);
    else rows.push(["", ">", op.line]);
  }
  const out = [`${options.leftLabel.padEnd(column)}   ${options.rightLabel}`];
  out.push(`${"-".repeat(column)}   ${"-".repeat(column)}`);
  for (const [l, mark, r] of rows) {
    const a = wrap(l, column);
    const b = wrap(r, column);
    for (let k = 0; k < Math.max(a.length, b.length); k++)
      out.push(`${(a[k] ?? "").padEnd(column)} ${k === 0 ? mark : " "} ${b[k] ?? ""}`.trimEnd());
  }
  return `${out.join("\n")}\n`;
}

function wrap(line: string, width: number): string[] {
  const chars = [...line];
  if (chars.length <= width) return [line];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += width) out.push(chars.slice(i, i + width).join(""));
  return out;
}
