import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createLogLineParser } from "./createLogLineParser.js";

/** What `JSON.parse` makes of the line: its JSON text (key order included) or the error's class. */
function outcome(parse: (line: string) => unknown, line: string): string {
  try {
    return `ok ${JSON.stringify(parse(line))}`;
  } catch (error) {
    return `throws ${(error as Error).name}`;
  }
}

const tool = fc.record(
  {
    name: fc.constantFrom("a", "b", "tools", "event"),
    description: fc.string({ maxLength: 8 }),
    inputSchema: fc.record({
      type: fc.constant("object"),
      properties: fc.jsonValue({ maxDepth: 2 }),
    }),
  },
  { requiredKeys: ["name"] },
);
/** Few distinct lists, so lines often repeat an earlier list and sometimes change it. */
const toolList = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom([], [{ name: "a" }], [{ name: "b" }]) },
  fc.array(tool, { maxLength: 3 }),
);
const fetched = fc.record({
  type: fc.constantFrom("ToolsFetched", "ToolsInvalidated"),
  v: fc.constant(1),
  at: fc.constantFrom("2026-01-01T00:00:00.000Z", 'a,"tools":[', 'b,"event":{'),
  extension: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom("s1", "s2") },
    fc.jsonValue({ maxDepth: 1 }),
  ),
  startedAtVersion: fc.nat(5),
  tools: toolList,
});
/** A bare event, an export line around one, or another shape that contains the keys. */
const lineValue = fc.oneof(
  fetched,
  fetched.map((event) => ({ session: "s", position: 1, metadata: {}, event })),
  fetched.map((event) => ({ event, session: "s" })),
  fetched.map((event) => ({ tools: [1], event })),
  fetched.map((event) => ({ ...event, complete: false })),
  fetched.map((event) => ({ extension: "s1", startedAtVersion: 0, x: { tools: event.tools } })),
  fc.jsonValue({ maxDepth: 3 }),
);
/** Text put into a line as it is: plain, or with characters JSON strings must escape. */
const rawText = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ unit: "binary", maxLength: 4 }),
  fc
    .array(
      fc.constantFrom(
        "a",
        '"',
        "\\",
        "\\u0041",
        "\\n",
        "\t",
        "\u0000",
        "\u001f",
        "\u007f",
        "\u2028",
        "\ud800",
      ),
      {
        maxLength: 4,
      },
    )
    .map((parts) => parts.join("")),
);
/** Lines as written, with duplicate keys, or damaged (cut, a character inserted or dropped). */
const line = fc.oneof(
  { weight: 4, arbitrary: lineValue.map((v) => JSON.stringify(v)) },
  fc
    .tuple(
      lineValue,
      fc.constantFrom(
        '"tools":[],',
        '"tools":0,',
        '"event":{},',
        '"event":1,',
        '"extension":"s2",',
      ),
    )
    .map(([v, extra]) => {
      const text = JSON.stringify(v);
      return text.startsWith("{") && text !== "{}" ? `{${extra}${text.slice(1)}` : text;
    }),
  // The commonest line, with any characters in its strings, escaped or raw.
  fc
    .tuple(
      fc.constantFrom(
        '{"type":"ToolsInvalidated","v":1,"at":"',
        '{"type":"ToolsInvalidated","v":2,"at":"',
        '{"type":"ToolsInvalidated", "v":1,"at":"',
      ),
      rawText,
      rawText,
      fc.constantFrom('"}', '"} ', '"}}', '"},'),
    )
    .map(([head, at, extension, end]) => `${head}${at}","extension":"${extension}${end}`),
  // Raw characters UTF-8 carries in one to four bytes, or not at all (a lone surrogate).
  fc
    .constantFrom("a", "\u00e9", "\u20ac", "\ud83d\ude00", "\ud800", "\ufffd", "\ud800\ud800")
    .map(
      (name) =>
        `{"type":"ToolsFetched","v":1,"extension":"s1","startedAtVersion":0,"tools":[{"name":"${name}"}]}`,
    ),
  fc.constantFrom(
    '{,"tools":[]}',
    '{"event":{,"tools":[]}}',
    '{,"event":{"extension":"s1","tools":[]}}',
  ),
  fc
    .tuple(lineValue, fc.nat(), fc.constantFrom("", "}", "]", ",", '"', "{", " ", "\\"))
    .map(([v, n, c]) => {
      const text = JSON.stringify(v);
      const at = n % (text.length + 1);
      return c === ""
        ? text.slice(0, at) + text.slice(at + 1)
        : text.slice(0, at) + c + text.slice(at);
    }),
);

describe("createLogLineParser (E2: replay reads the log as written)", () => {
  it("gives what JSON.parse gives for every line of any log, or throws as it does", () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (lines) => {
        const parse = createLogLineParser();
        for (const text of lines) expect(outcome(parse, text)).toBe(outcome(JSON.parse, text));
      }),
      { numRuns: 500 },
    );
  });

  it("reads the commonest line, ToolsInvalidated, as JSON.parse does, whatever its strings hold", () => {
    const parse = createLogLineParser();
    fc.assert(
      fc.property(rawText, rawText, (at, extension) => {
        const text = `{"type":"ToolsInvalidated","v":1,"at":"${at}","extension":"${extension}"}`;
        expect(outcome(parse, text)).toBe(outcome(JSON.parse, text));
      }),
      { numRuns: 1000 },
    );
  });

  it("reuses the parsed list of a fetch that repeats the extension's previous list", () => {
    const parse = createLogLineParser();
    const list = '[{"name":"a","inputSchema":{"type":"object"}}]';
    const at = (v: number, tools: string) =>
      `{"type":"ToolsFetched","v":1,"extension":"s1","startedAtVersion":${v},"tools":${tools}}`;
    const first = parse(at(0, list)) as { tools: unknown; startedAtVersion: number };
    const again = parse(at(1, list)) as { tools: unknown; startedAtVersion: number };
    expect(again.startedAtVersion).toBe(1);
    expect(again.tools).toBe(first.tools);
    // A changed list is parsed anew and becomes the one to compare with.
    const changed = parse(at(2, "[]")) as { tools: unknown };
    expect(changed.tools).toEqual([]);
    expect((parse(at(3, "[]")) as { tools: unknown }).tools).toBe(changed.tools);
    expect((parse(at(4, list)) as { tools: unknown }).tools).not.toBe(first.tools);
  });

  it("reuses lists in `toolledger export` lines too", () => {
    const parse = createLogLineParser();
    const line = (p: number) =>
      `{"session":"s","position":${p},"eventId":"e${p}","recordedAt":"","metadata":{},"event":{"type":"ToolsFetched","v":1,"extension":"s1","startedAtVersion":${p},"tools":[{"name":"a"}]}}`;
    const first = parse(line(1)) as { event: { tools: unknown } };
    const second = parse(line(2)) as { position: number; event: { tools: unknown } };
    expect(JSON.stringify(second)).toBe(JSON.stringify(JSON.parse(line(2))));
    expect(second.event.tools).toBe(first.event.tools);
  });

  it("words a broken line as JSON.parse does", () => {
    const parse = createLogLineParser();
    const broken =
      '{"type":"ToolsFetched","v":1,"extension":"s1","startedAtVersion":0,"tools":[{"name":}]}';
    expect(() => parse(broken)).toThrow(SyntaxError);
    expect(() => parse(broken)).toThrow(
      (() => {
        try {
          JSON.parse(broken);
        } catch (error) {
          return (error as Error).message;
        }
        return "";
      })(),
    );
  });
});
