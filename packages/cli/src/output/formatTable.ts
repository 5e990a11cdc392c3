import { visibleWidth } from "./style.js";

/** The widest a cell is shown (visible characters, `…` included); `--json` keeps it whole. */
export const MAX_CELL_WIDTH = 80;

export interface TableOptions {
  /** Column titles; printed first when given. */
  header?: readonly string[];
  /** Right-align these column indexes (numbers). */
  right?: readonly number[];
  /** Applied to the header cells (e.g. bold), after padding. */
  styleHeader?: (text: string) => string;
  /**
   * Longer cells are cut and end in `…` (default MAX_CELL_WIDTH), so one long value (a
   * 1,000-character tool name) does not pad every row of its column to its width. Only
   * prose the program wrote itself (help text) passes Infinity.
   */
  maxCellWidth?: number;
}

/**
 * Aligned columns separated by two spaces, no trailing white space. Cells may carry colour
 * codes; widths count visible characters only.
 */
export function formatTable(
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string {
  const max = options.maxCellWidth ?? MAX_CELL_WIDTH;
  const cap = (row: readonly string[]) => row.map((cell) => elide(cell, max));
  const header = options.header ? cap(options.header) : undefined;
  const body = rows.map(cap);
  const all = header ? [header, ...body] : body;
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
  if (header) out.push(line(header, options.styleHeader));
  for (const row of body) out.push(line(row));
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape codes is the point
const ESCAPE = /\u001b\[[0-9;]*m/y;

/**
 * At most `max` visible characters of `text`, the last one `…` when it was cut. Colour codes
 * count nothing and are all kept, those after the cut too, so a colour still ends where it did.
 */
export function elide(text: string, max: number): string {
  if (visibleWidth(text) <= max) return text;
  let out = "";
  let shown = 0;
  let i = 0;
  while (i < text.length) {
    ESCAPE.lastIndex = i;
    const code = ESCAPE.exec(text);
    if (code) {
      out += code[0];
      i += code[0].length;
      continue;
    }
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    if (shown < max - 1) out += ch;
    else if (shown === max - 1) out += "…";
    shown++;
    i += ch.length;
  }
  return out;
}
