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
