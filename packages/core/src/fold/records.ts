// Plain-object dictionaries keep state JSON-serialisable; keys come from users and servers
// (`__proto__`, `constructor` are valid extension keys), so every read checks own keys.

export type Dict<T> = Readonly<Record<string, T>>;

export function get<T>(rec: Dict<T>, key: string): T | undefined {
  return Object.hasOwn(rec, key) ? rec[key] : undefined;
}

/**
 * Sets an own property on a record being built. Plain assignment everywhere but `__proto__`,
 * whose assignment would change the prototype instead.
 */
export function setOwn<T>(rec: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") {
    Object.defineProperty(rec, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    rec[key] = value;
  }
}
