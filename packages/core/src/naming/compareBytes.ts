/**
 * Byte-wise (UTF-8) order of two strings, which is code point order. JavaScript's `<`
 * compares UTF-16 code units and puts U+E000–U+FFFF after astral characters; this does not.
 */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      if (xs !== ys && (x >= 0xe000 || y >= 0xe000)) return xs ? 1 : -1;
      return x - y;
    }
  }
  return a.length - b.length;
}

// Only code units from U+D800 up can make UTF-16 order differ from code point order.
const HIGH = /[\uD800-\uFFFF]/;

/** Whether `text` has no code unit from U+D800 up: among such strings `<` is byte-wise order. */
export function ordersNatively(text: string): boolean {
  return !HIGH.test(text);
}

/**
 * Sorts `items` in place by `key`, byte-wise. Uses the engine's native string order (much
 * faster) when no key has a code unit from U+D800 up, where the two orders agree.
 */
export function sortBytewise<T>(items: T[], key: (item: T) => string): T[] {
  if (!items.every((item) => ordersNatively(key(item)))) {
    return items.sort((a, b) => compareBytes(key(a), key(b)));
  }
  return items.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}
