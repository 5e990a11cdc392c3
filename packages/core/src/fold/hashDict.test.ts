import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  emptyHashDict,
  type HashDict,
  hfromKeys,
  hget,
  hhas,
  hkeys,
  hremove,
  hset,
} from "./hashDict.js";

const key = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom("__proto__", "constructor", "toString", ""),
);

describe("the persistent hash trie behind extensions and answered call ids", () => {
  it("behaves like a Map under random sets and removes, never mutating an earlier version", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), key, fc.nat()), { maxLength: 200 }), (ops) => {
        let d: HashDict<number> = emptyHashDict();
        const model = new Map<string, number>();
        const history: [HashDict<number>, string][] = [];
        for (const [remove, k, v] of ops) {
          history.push([d, JSON.stringify(d)]);
          if (remove) {
            d = hremove(d, k);
            model.delete(k);
          } else {
            d = hset(d, k, v);
            model.set(k, v);
          }
          expect(d.size).toBe(model.size);
        }
        for (const [k, v] of model) expect(hget(d, k)).toBe(v);
        expect(hkeys(d).sort()).toEqual([...model.keys()].sort());
        for (const [old, json] of history) expect(JSON.stringify(old)).toBe(json);
        expect(JSON.parse(JSON.stringify(d))).toEqual(d);
      }),
      { numRuns: 300 },
    );
  });

  it("hfromKeys builds the same structure as setting each key in turn", () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 300 }), (keys) => {
        let d: HashDict<true> = emptyHashDict();
        for (const k of keys) if (!hhas(d, k)) d = hset(d, k, true);
        expect(hfromKeys(keys, true)).toEqual(d);
      }),
      { numRuns: 300 },
    );
  });
});
