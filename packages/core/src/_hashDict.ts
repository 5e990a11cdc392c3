import { type Dict, get, has, remove, set } from "./_records.js";

// A persistent string map that stays plain JSON: 64 buckets of small records. Replacing one
// entry copies the bucket array and one bucket, not the whole map, so an event that touches
// one extension costs the same with 2 extensions or 2,000 (a spread of a 400-key record costs
// more than registering 50 tools).

const BUCKETS = 64;

export interface HashDict<V> {
  readonly size: number;
  readonly buckets: readonly (Dict<V> | null)[];
}

export function emptyHashDict<V>(): HashDict<V> {
  return { size: 0, buckets: new Array<Dict<V> | null>(BUCKETS).fill(null) };
}

function bucketOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) & (BUCKETS - 1);
}

export function hget<V>(d: HashDict<V>, key: string): V | undefined {
  const bucket = d.buckets[bucketOf(key)];
  return bucket ? get(bucket, key) : undefined;
}

export function hset<V>(d: HashDict<V>, key: string, value: V): HashDict<V> {
  const i = bucketOf(key);
  const bucket = d.buckets[i] ?? {};
  const added = has(bucket, key) ? 0 : 1;
  const buckets = d.buckets.slice();
  buckets[i] = set(bucket, key, value);
  return { size: d.size + added, buckets };
}

export function hremove<V>(d: HashDict<V>, key: string): HashDict<V> {
  const i = bucketOf(key);
  const bucket = d.buckets[i];
  if (!bucket || !has(bucket, key)) return d;
  const next = remove(bucket, key);
  const buckets = d.buckets.slice();
  buckets[i] = Object.keys(next).length === 0 ? null : next;
  return { size: d.size - 1, buckets };
}

/** Every key, in no particular order. */
export function hkeys(d: HashDict<unknown>): string[] {
  const out: string[] = [];
  for (const bucket of d.buckets) if (bucket) out.push(...Object.keys(bucket));
  return out;
}

export function hvalues<V>(d: HashDict<V>): V[] {
  const out: V[] = [];
  for (const bucket of d.buckets) if (bucket) out.push(...Object.values(bucket));
  return out;
}

export function hfromKeys<V>(keys: Iterable<string>, value: V): HashDict<V> {
  let d = emptyHashDict<V>();
  for (const k of keys) d = hset(d, k, value);
  return d;
}
