import type { BenchResult, Target } from "./benchResult.js";

function num(x: number | null): string {
  if (x === null) return "–";
  const a = Math.abs(x);
  if (a >= 100_000) return x.toExponential(2);
  if (a >= 1000) return x.toFixed(0);
  if (a >= 100) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  return x.toPrecision(3);
}

export function formatTarget(t: Target | null, unit = ""): string {
  if (t === null) return "report";
  const op = t.op === "<=" ? "≤" : t.op === ">=" ? "≥" : "<";
  return t.absolute ? `${op} ${t.value} ${unit}` : `${op} ${t.value}`;
}

/** The results as one Markdown table, then one note per row that has one. */
export function formatTable(results: readonly BenchResult[]): string {
  const header = ["#", "benchmark", "unit", "toolledger", "baseline", "ratio", "target", "result"];
  const rows = results.map((r) => [
    r.id,
    r.name,
    r.unit,
    num(r.toolledger),
    num(r.baseline),
    r.ratio === null ? "–" : r.ratio.toFixed(2),
    formatTarget(r.target, r.unit),
    r.status,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i >= 3 && i <= 5 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(" | ")} |`;
  const out = [
    line(header),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.map(line),
  ];
  out.push("");
  for (const r of results) {
    const load = r.loadAverage ? ` (load ${r.loadAverage.before} → ${r.loadAverage.after})` : "";
    out.push(
      r.status === "not run"
        ? `- ${r.id}${load}: not run: ${r.note}`
        : `- ${r.id}${load}: baseline = ${r.baselineName}${r.note ? `; ${r.note}` : ""}`,
    );
  }
  return out.join("\n");
}
