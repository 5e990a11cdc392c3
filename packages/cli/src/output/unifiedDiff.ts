export interface DiffOptions {
  oldLabel: string;
  newLabel: string;
  /** Unchanged lines shown around each change. Default 3. */
  context?: number;
}

type Op = { kind: " " | "-" | "+"; line: string };

/**
 * A unified diff (`---`/`+++`, `@@` hunks) of two texts, line by line; "" when they are equal.
 * Config files are small, so a quadratic LCS is enough; past a size bound the whole file is
 * shown replaced.
 */
export function unifiedDiff(before: string, after: string, options: DiffOptions): string {
  if (before === after) return "";
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = a.length * b.length <= 4_000_000 ? lcsOps(a, b) : replaceAll(a, b);
  const context = options.context ?? 3;
  const out = [`--- ${options.oldLabel}`, `+++ ${options.newLabel}`];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]?.kind === " ") {
      i++;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` after the last change
    // that is at most 2 * context unchanged lines away.
    const start = Math.max(0, i - context);
    let end = i;
    let j = i;
    while (j < ops.length) {
      if (ops[j]?.kind !== " ") {
        end = j;
        j++;
        continue;
      }
      let run = 0;
      while (j + run < ops.length && ops[j + run]?.kind === " ") run++;
      if (j + run >= ops.length || run > 2 * context) break;
      j += run;
    }
    const stop = Math.min(ops.length, end + context + 1);
    const hunk = ops.slice(start, stop);
    const oldStart = ops.slice(0, start).filter((o) => o.kind !== "+").length;
    const newStart = ops.slice(0, start).filter((o) => o.kind !== "-").length;
    const oldCount = hunk.filter((o) => o.kind !== "+").length;
    const newCount = hunk.filter((o) => o.kind !== "-").length;
    out.push(`@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
    i = stop;
  }
  return `${out.join("\n")}\n`;
}

function range(start: number, count: number): string {
  return `${count === 0 ? start : start + 1},${count}`;
}

export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

export function lcsOps(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lengths[i][j]: LCS of a[i..] and b[j..], in one flat array.
  const lengths = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * (m + 1) + j] =
        a[i] === b[j]
          ? (lengths[(i + 1) * (m + 1) + j + 1] as number) + 1
          : Math.max(
              lengths[(i + 1) * (m + 1) + j] as number,
              lengths[i * (m + 1) + j + 1] as number,
            );
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i] as string });
      i++;
      j++;
    } else if (
      (lengths[(i + 1) * (m + 1) + j] as number) >= (lengths[i * (m + 1) + j + 1] as number)
    ) {
      ops.push({ kind: "-", line: a[i++] as string });
    } else {
      ops.push({ kind: "+", line: b[j++] as string });
    }
  }
  while (i < n) ops.push({ kind: "-", line: a[i++] as string });
  while (j < m) ops.push({ kind: "+", line: b[j++] as string });
  return ops;
}

function replaceAll(a: readonly string[], b: readonly string[]): Op[] {
  return [
    ...a.map((line) => ({ kind: "-" as const, line })),
    ...b.map((line) => ({ kind: "+" as const, line })),
  ];
}
