import { visibleWidth } from "./style.js";

export interface TableOptions {
  /** Column titles; printed first when given. */
  header?: readonly string[];
  /** Right-align these column indexes (numbers). */
  right?: readonly number[];
  /** Applied to the header cells (e.g. bold), after padding. */
  styleHeader?: (text: string) => string;
}

/**
 * Aligned columns separated by two spaces, no trailing white space. Cells may carry colour
 * codes; widths count visible characters only.
 */
export function formatTable(
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string {
  const all = options.header ? [options.header, ...rows] : rows;
  const columns = Math.max(0, ...all.map((r) => r.length));
  const widths: number[] = [];
  for (let c = 0; c < columns; c++)
    widths.push(Math.max(0, ...all.map((r) => visibleWidth(r[c] ?? ""))));
  const right = new Set(options.right ?? []);
  const line = (row: readonly string[], styleCell?: (t: string) => string) => {
    const cells: string[] = [];
    for (let c = 0; c < columns; c++) {
      const text = row[c] ?? "";
      const pad = " ".repeat((widths[c] ?? 0) - visibleWidth(text));
      const last = c === columns - 1;
      let cell = right.has(c) ? pad + text : last ? text : text + pad;
      if (styleCell) cell = styleCell(cell);
      cells.push(cell);
    }
    return cells.join("  ").trimEnd();
  };
  const out: string[] = [];
  if (options.header) out.push(line(options.header, options.styleHeader));
  for (const row of rows) out.push(line(row));
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}
