/**
 * The names a mistyped `input` most likely meant, nearest first: those within a small edit
 * distance (a third of its length, at least 1; a swap of two neighbours counts once) and
 * those it begins (two characters or more), so `sesions`, `exprot` and `sess` find theirs.
 */
export function closestNames(input: string, candidates: readonly string[]): string[] {
  const limit = Math.max(1, Math.floor(input.length / 3));
  return candidates
    .map((name) => ({ name, d: editDistance(input, name) }))
    .filter(({ name, d }) => d <= limit || (input.length >= 2 && name.startsWith(input)))
    .sort((a, b) => a.d - b.d)
    .map(({ name }) => name);
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
