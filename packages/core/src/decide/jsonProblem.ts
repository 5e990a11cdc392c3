/** Deeper than any real JSON Schema; also where a cyclic structure is caught. */
const MAX_DEPTH = 256;

export interface JsonProblem {
  path: (string | number)[];
  message: string;
}

/**
 * Why `value` would not survive JSON.stringify → JSON.parse unchanged (a function, undefined
 * in an array, NaN, a class instance, a cycle), or null. An event holding it could be
 * appended but not reloaded as it was folded (E6).
 */
export function jsonProblem(
  value: unknown,
  path: (string | number)[] = [],
  seen: JsonSeen = { negativeZero: false },
): JsonProblem | null {
  return check(value, path, 0, seen);
}

/** What a check saw that JSON keeps, but not as it was: `-0` reads back as `0`. */
export interface JsonSeen {
  negativeZero: boolean;
}

/** `value` as the log reloads it (for a value `jsonProblem` accepted): `-0` written as `0`. */
export function asReloaded<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function check(
  value: unknown,
  path: (string | number)[],
  depth: number,
  seen: JsonSeen,
): JsonProblem | null {
  switch (typeof value) {
    case "string":
    case "boolean":
      return null;
    case "number":
      if (value === 0 && 1 / value < 0) seen.negativeZero = true;
      return Number.isFinite(value)
        ? null
        : { path, message: `${value} is not a JSON number; use a finite number or null` };
    case "object": {
      if (value === null) return null;
      if (depth >= MAX_DEPTH)
        return { path, message: `nested deeper than ${MAX_DEPTH} levels (or cyclic)` };
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          // A hole or undefined in an array reads back as null.
          if (value[i] === undefined)
            return { path: [...path, i], message: "undefined is not a JSON value; use null" };
          const problem = check(value[i], [...path, i], depth + 1, seen);
          if (problem) return problem;
        }
        return null;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        return {
          path,
          message: `a ${proto?.constructor?.name ?? "non-plain"} object is not a JSON value; pass plain objects`,
        };
      }
      for (const key of Object.keys(value)) {
        const item = (value as Record<string, unknown>)[key];
        // An undefined property is dropped by JSON.stringify, as the reader expects.
        if (item === undefined) continue;
        const problem = check(item, [...path, key], depth + 1, seen);
        if (problem) return problem;
      }
      return null;
    }
    case "undefined":
      return { path, message: "undefined is not a JSON value" };
    default:
      return { path, message: `a ${typeof value} is not a JSON value` };
  }
}
