// A persistent string map that stays plain JSON: a two-level trie of 64 × 64 leaves, each a
// pair of parallel arrays. Replacing one entry copies two 64-slot arrays and one small leaf,
// not the whole map, so an event that touches one extension (or answers one call) costs the
// same whether the map holds 2 entries or 200,000. Leaves are arrays, not records: creating
// records with ever-new keys is ~20x slower in V8, and arrays have no `__proto__` pitfalls.

const FANOUT = 64;

/** [keys, values], parallel. */
type Leaf<V> = readonly [readonly string[], readonly V[]];
type Branch<V> = readonly (Leaf<V> | null)[];

export interface HashDict<V> {
  readonly size: number;
  readonly buckets: readonly (Branch<V> | null)[];
}

const EMPTY: readonly null[] = Object.freeze(new Array<null>(FANOUT).fill(null));

export function emptyHashDict<V>(): HashDict<V> {
  return { size: 0, buckets: EMPTY };
}

function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function leafOf<V>(d: HashDict<V>, h: number): Leaf<V> | null | undefined {
  return d.buckets[h & 63]?.[(h >>> 6) & 63];
}

export function hget<V>(d: HashDict<V>, key: string): V | undefined {
  const leaf = leafOf(d, hashOf(key));
  if (!leaf) return undefined;
  const i = leaf[0].indexOf(key);
  return i === -1 ? undefined : leaf[1][i];
}

export function hhas(d: HashDict<unknown>, key: string): boolean {
  const leaf = leafOf(d, hashOf(key));
  return leaf ? leaf[0].includes(key) : false;
}

export function hset<V>(d: HashDict<V>, key: string, value: V): HashDict<V> {
  const h = hashOf(key);
  const i = h & 63;
  const j = (h >>> 6) & 63;
  const branch: Branch<V> = d.buckets[i] ?? EMPTY;
  const leaf = branch[j];
  let next: Leaf<V>;
  let added = 1;
  if (!leaf) {
    next = [[key], [value]];
  } else {
    const at = leaf[0].indexOf(key);
    if (at === -1) {
      next = [
        [...leaf[0], key],
        [...leaf[1], value],
      ];
    } else {
      const values = leaf[1].slice();
      values[at] = value;
      // A copy, not the literal `[leaf[0], values]`: V8 may decide a literal's objects live
      // long (allocation-site pretenuring, decided once at a busy moment and never undone)
      // and allocate them in old space from then on; an old leaf keeps its young values
      // alive through every scavenge, so each replaced extension was promoted and collected
      // by mark-compact (bench 1: 1.3-2.5 µs per ToolsInvalidated against ~0.7, see
      // bench/DIARY.md). A builtin's copy is always young.
      const copy = leaf.slice() as [readonly string[], readonly V[]];
      copy[1] = values;
      next = copy;
      added = 0;
    }
  }
  const nextBranch = branch.slice();
  nextBranch[j] = next;
  const buckets = d.buckets.slice();
  buckets[i] = nextBranch;
  return { size: d.size + added, buckets };
}

export function hremove<V>(d: HashDict<V>, key: string): HashDict<V> {
  const h = hashOf(key);
  const i = h & 63;
  const j = (h >>> 6) & 63;
  const branch = d.buckets[i];
  const leaf = branch?.[j];
  const at = leaf ? leaf[0].indexOf(key) : -1;
  if (!branch || !leaf || at === -1) return d;
  const nextBranch = branch.slice();
  nextBranch[j] =
    leaf[0].length === 1
      ? null
      : [leaf[0].filter((_, k) => k !== at), leaf[1].filter((_, k) => k !== at)];
  const buckets = d.buckets.slice();
  buckets[i] = nextBranch.every((l) => l === null) ? null : nextBranch;
  return { size: d.size - 1, buckets };
}

/** Every key, in no particular order. */
export function hkeys(d: HashDict<unknown>): string[] {
  const out: string[] = [];
  for (const branch of d.buckets)
    if (branch) for (const leaf of branch) if (leaf) out.push(...leaf[0]);
  return out;
}

export function hvalues<V>(d: HashDict<V>): V[] {
  const out: V[] = [];
  for (const branch of d.buckets)
    if (branch) for (const leaf of branch) if (leaf) out.push(...leaf[1]);
  return out;
}

/** A map of `keys` (duplicates collapse) all set to `value`, built in one pass. */
export function hfromKeys<V>(keys: Iterable<string>, value: V): HashDict<V> {
  // Built with private mutable arrays, which nobody else sees until they are returned.
  const buckets: ([string[], V[]] | null)[][] = [];
  let size = 0;
  for (const key of keys) {
    const h = hashOf(key);
    let branch = buckets[h & 63];
    if (!branch) {
      branch = new Array<[string[], V[]] | null>(FANOUT).fill(null);
      buckets[h & 63] = branch;
    }
    const j = (h >>> 6) & 63;
    let leaf = branch[j];
    if (!leaf) {
      leaf = [[], []];
      branch[j] = leaf;
    }
    if (leaf[0].includes(key)) continue;
    leaf[0].push(key);
    leaf[1].push(value);
    size++;
  }
  if (size === 0) return emptyHashDict();
  const root: (Branch<V> | null)[] = new Array<Branch<V> | null>(FANOUT).fill(null);
  for (let i = 0; i < FANOUT; i++) root[i] = buckets[i] ?? null;
  return { size, buckets: root };
}
