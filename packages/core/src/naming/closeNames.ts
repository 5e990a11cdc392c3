/** Up to `limit` candidates closest to `name` (edit distance, then containment), best first. */
export function closeNames(name: string, candidates: Iterable<string>, limit = 5): string[] {
  const target = name.toLowerCase();
  const budget = Math.max(2, Math.floor(target.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const candidate of candidates) {
    const c = candidate.toLowerCase();
    let score: number;
    if (c.includes(target) || (target.length >= 3 && target.includes(c))) {
      score = Math.abs(c.length - target.length) / 100;
    } else {
      if (Math.abs(c.length - target.length) > budget) continue;
      const d = editDistance(target, c, budget);
      if (d > budget) continue;
      score = d;
    }
    scored.push({ name: candidate, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, limit).map((s) => s.name);
}

/** Levenshtein distance, giving up (returning budget + 1) once it must exceed `budget`. */
function editDistance(a: string, b: string, budget: number): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > budget) return budget + 1;
    prev = cur;
  }
  return prev[b.length]!;
}
