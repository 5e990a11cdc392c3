/**
 * A whole number with thousands separators, as `toLocaleString("en-US")` writes it. The first
 * `toLocaleString` of a page loads the locale data (20–80 ms on the benchmark machine), which
 * the first render should not wait for.
 */
export function formatCount(x: number): string {
  if (!Number.isSafeInteger(x) || Object.is(x, -0)) return x.toLocaleString("en-US");
  const digits = String(Math.abs(x));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return x < 0 ? `-${out}` : out;
}
