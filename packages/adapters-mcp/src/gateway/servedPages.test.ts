import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { ProtocolError } from "./protocolError.js";
import { DEFAULT_LIST_PAGE_BYTES, type ServedList, servedPage } from "./servedPages.js";

// V3 (issue 34.1): every served list comes in pages a client can read.

interface Item {
  name: string;
  description: string;
}
const item = (name: string, bytes = 100): Item => ({ name, description: "d".repeat(bytes) });
const itemBytes = (i: Item) => Buffer.byteLength(JSON.stringify(i));
const names = (items: readonly Item[]) => items.map((i) => i.name);
const key = (i: Item) => i.name;

/** Every page from the first, as a client follows nextCursor, each page's JSON size with it. */
function pages(list: readonly Item[], budget: number, kind: ServedList = "tools") {
  const out: { names: string[]; bytes: number }[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const page = servedPage(kind, list, key, cursor, budget);
    out.push({ names: names(page.items), bytes: Buffer.byteLength(JSON.stringify(page.items)) });
    if (page.nextCursor === undefined) return out;
    cursor = page.nextCursor;
  }
  throw new Error("no end");
}

const list = Array.from({ length: 50 }, (_, i) => item(`t_${String(i).padStart(2, "0")}`));

describe("V3 served pages", () => {
  it("a list within the budget is served whole: the same array, no cursor", () => {
    const page = servedPage("tools", list, key, undefined, DEFAULT_LIST_PAGE_BYTES);
    expect(page.items).toBe(list);
    expect(page.nextCursor).toBeUndefined();
  });

  it("a longer list comes in pages within the budget, every item once, in order", () => {
    const budget = 10 * itemBytes(list[0]!) + 11;
    const got = pages(list, budget);
    expect(got.length).toBe(5);
    for (const p of got) expect(p.bytes).toBeLessThanOrEqual(budget);
    expect(got.flatMap((p) => p.names)).toEqual(names(list));
  });

  it("an item larger than the budget is served on a page of its own, never dropped", () => {
    const odd = [item("a"), item("huge", 5000), item("b")];
    const got = pages(odd, 1000);
    expect(got.map((p) => p.names)).toEqual([["a"], ["huge"], ["b"]]);
  });

  it("a list that changed between two pages: nothing that stayed is repeated or skipped", () => {
    const budget = 10 * itemBytes(list[0]!) + 11;
    const first = servedPage("tools", list, key, undefined, budget);
    expect(names(first.items)).toEqual(names(list.slice(0, 10)));
    // Two items appear before the cursor's item and one after it; the first page's items stay.
    const changed = [
      item("a_new"),
      item("b_new"),
      ...list.slice(0, 12),
      item("t_115"),
      ...list.slice(12),
    ];
    const second = servedPage("tools", changed, key, first.nextCursor, budget);
    expect(names(second.items)[0]).toBe("t_10");
    // The item served last is gone: the page starts with the one that was to come next.
    const without = list.filter((i) => i.name !== "t_09");
    const third = servedPage("tools", without, key, first.nextCursor, budget);
    expect(names(third.items)[0]).toBe("t_10");
    // Both are gone: it goes on from the same position.
    const neither = list.filter((i) => i.name !== "t_09" && i.name !== "t_10");
    const fourth = servedPage("tools", neither, key, first.nextCursor, budget);
    expect(names(fourth.items)[0]).toBe("t_12");
  });

  it("a cursor that is not this list's is -32602, naming the method and what to do", () => {
    const budget = 10 * itemBytes(list[0]!) + 11;
    const { nextCursor } = servedPage("tools", list, key, undefined, budget);
    const refuse = (kind: ServedList, cursor: string) => {
      try {
        servedPage(kind, list, key, cursor, budget);
      } catch (error) {
        return error;
      }
      return null;
    };
    for (const [kind, cursor, method] of [
      ["prompts", nextCursor!, "prompts/list"],
      ["resourceTemplates", nextCursor!, "resources/templates/list"],
      ["tools", "not a cursor", "tools/list"],
      [
        "tools",
        Buffer.from('{"l":"tools","i":0,"h":"x","n":"y"}').toString("base64url"),
        "tools/list",
      ],
    ] as const) {
      const error = refuse(kind, cursor);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code).toBe(ProtocolErrorCode.InvalidParams);
      expect((error as ProtocolError).message).toContain(`Invalid cursor for ${method}`);
      expect((error as ProtocolError).message).toContain("list again without a cursor");
    }
  });

  it("counts UTF-8 bytes, not characters", () => {
    const wide = Array.from({ length: 4 }, (_, i) => ({
      name: `w${i}`,
      description: "é".repeat(100),
    }));
    const one = Buffer.byteLength(JSON.stringify(wide[0]));
    const got = pages(wide, 2 * one + 3);
    expect(got.map((p) => p.names.length)).toEqual([2, 2]);
  });
});
