// Plain-object dictionaries keep state JSON-serialisable; keys come from users and servers
// (`__proto__`, `constructor` are valid extension keys), so every read checks own keys.

export type Dict<T> = Readonly<Record<string, T>>;

export function get<T>(rec: Dict<T>, key: string): T | undefined {
  return Object.hasOwn(rec, key) ? rec[key] : undefined;
}

export function has(rec: Dict<unknown>, key: string): boolean {
  return Object.hasOwn(rec, key);
}

/** A copy with `key` set; computed keys define own properties, so `__proto__` is safe. */
export function set<T>(rec: Dict<T>, key: string, value: T): Dict<T> {
  return { ...rec, [key]: value };
}

export function remove<T>(rec: Dict<T>, key: string): Dict<T> {
  if (!Object.hasOwn(rec, key)) return rec;
  const { [key]: _removed, ...rest } = rec;
  return rest;
}

export function emptyDict<T>(): Dict<T> {
  return {};
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
