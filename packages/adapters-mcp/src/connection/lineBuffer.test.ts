import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LineBuffer, OversizeMessageError, parseMessage } from "./lineBuffer.js";

function drain(buffer: LineBuffer): (unknown | Error)[] {
  const out: (unknown | Error)[] = [];
  for (;;) {
    try {
      const m = buffer.readMessage();
      if (m === null) return out;
      out.push(m);
    } catch (error) {
      out.push(error as Error);
    }
  }
}

const request = (id: number, size = 10) => ({
  jsonrpc: "2.0" as const,
  id,
  method: "tools/call",
  params: { name: "t", arguments: { value: "é".repeat(size) } },
});

describe("LineBuffer", () => {
  it("yields the same messages however the stream is cut into chunks (UTF-8 split included)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 20 }),
        (sizes, cuts) => {
          const messages = sizes.map((n, i) => request(i, n));
          const bytes = Buffer.from(messages.map((m) => `${JSON.stringify(m)}\r\n`).join(""));
          const buffer = new LineBuffer(1 << 20);
          let at = 0;
          for (let i = 0; at < bytes.length; i++) {
            const n = cuts[i % cuts.length]!;
            buffer.append(bytes.subarray(at, at + n));
            at += n;
          }
          expect(drain(buffer)).toEqual(messages);
        },
      ),
    );
  });

  it("decodes a line cut into chunks as the whole line's bytes decode, malformed UTF-8 included", () => {
    // A long line's chunks are decoded as they arrive (bench 9a); a sequence cut by a chunk,
    // or broken, must become the same text (U+FFFD where toString puts it) as decoding it whole.
    const bytePool = [
      0x41, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xc3, 0xa9, 0x80, 0xff, 0xed, 0xa0,
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...bytePool), { maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 10 }),
        (inner, cuts) => {
          const line = Buffer.concat([
            Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"'),
            Buffer.from(inner),
            Buffer.from('"}}\n'),
          ]);
          const buffer = new LineBuffer(1 << 20);
          let at = 0;
          for (let i = 0; at < line.length; i++) {
            const n = cuts[i % cuts.length]!;
            buffer.append(line.subarray(at, at + n));
            at += n;
          }
          expect(drain(buffer)).toEqual([JSON.parse(line.subarray(0, -1).toString("utf8"))]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("the same with whole lines inside one chunk, blank lines between, and a line over the limit inside one chunk", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 4096 }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.constantFrom("", " ", "\r", "\t "), { maxLength: 12 }),
        fc.nat({ max: 11 }),
        (sizes, cuts, blanks, overIndex) => {
          const limit = 700;
          const messages = sizes.map((n, i) => request(i, n));
          const lines = messages.map((m) => JSON.stringify(m));
          const over = overIndex % lines.length;
          lines[over] = JSON.stringify(request(over, 1000));
          const text = lines.map((l, i) => `${blanks[i] ?? ""}\n${l}\n`).join("");
          const bytes = Buffer.from(text);
          const buffer = new LineBuffer(limit);
          let at = 0;
          for (let i = 0; at < bytes.length; i++) {
            const n = cuts[i % cuts.length]!;
            buffer.append(bytes.subarray(at, at + n));
            at += n;
          }
          const out = drain(buffer);
          expect(out).toHaveLength(messages.length);
          out.forEach((m, i) => {
            if (i === over) expect((m as OversizeMessageError).info?.id).toBe(over);
            else expect(m).toEqual(messages[i]);
          });
        },
      ),
    );
  });

  it("reads past a line over the limit, keeping nothing of it, and goes on with the next", () => {
    const buffer = new LineBuffer(1000);
    const big = JSON.stringify(request(7, 5000));
    for (let i = 0; i < big.length; i += 100) buffer.append(Buffer.from(big.slice(i, i + 100)));
    buffer.append(Buffer.from(`\n${JSON.stringify(request(8))}\n`));
    const [dropped, next] = drain(buffer);
    expect(dropped).toBeInstanceOf(OversizeMessageError);
    expect((dropped as OversizeMessageError).info).toMatchObject({
      id: 7,
      method: "tools/call",
      kind: "request",
      limit: 1000,
      bytes: Buffer.byteLength(big),
    });
    expect(next).toEqual(request(8));
  });

  it("finds the id of a dropped message at its start or as its last member, and tells responses from notifications", () => {
    const cases: [string, object][] = [
      [
        `{"method":"tools/call","params":{"x":"${"a".repeat(3000)}"},"jsonrpc":"2.0","id":"c-9"}`,
        { id: "c-9", kind: "request" },
      ],
      [
        `{"result":{"content":"${"a".repeat(3000)}"},"jsonrpc":"2.0","id":12}`,
        { id: 12, kind: "response" },
      ],
      [
        `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${"a".repeat(3000)}"}}`,
        { id: null, kind: "notification" },
      ],
      [`${"x".repeat(3000)}`, { id: null, kind: "unknown" }],
    ];
    for (const [line, info] of cases) {
      const buffer = new LineBuffer(1000);
      buffer.append(Buffer.from(`${line}\n`));
      const [dropped] = drain(buffer);
      expect((dropped as OversizeMessageError).info, line.slice(0, 40)).toMatchObject(info);
    }
  });

  it("makes an answer of a dropped reply when asked (the request it answered fails, the stream goes on)", () => {
    const buffer = new LineBuffer(100, (e) =>
      e.info.id === null
        ? null
        : { jsonrpc: "2.0", id: e.info.id, error: { code: -32600, message: e.message } },
    );
    buffer.append(Buffer.from(`{"result":{"x":"${"a".repeat(500)}"},"jsonrpc":"2.0","id":3}\n`));
    expect(drain(buffer)).toEqual([
      {
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32600, message: expect.stringContaining("dropped a response") },
      },
    ]);
  });

  it("a line that is not JSON-RPC is an error of its own; the next line still reads", () => {
    const buffer = new LineBuffer();
    buffer.append(Buffer.from(`not json\n{"jsonrpc":"2.0","method":"x"}\n\n`));
    const [bad, good] = drain(buffer);
    expect(bad).toBeInstanceOf(Error);
    expect(good).toEqual({ jsonrpc: "2.0", method: "x" });
  });
});

const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
const done = { jsonrpc: "2.0", id: 1, result: {} };

describe("LineBuffer: reading and parsing (the gateway's stdio reader)", () => {
  it("reads messages split across chunks and several in one chunk, in order", () => {
    const buffer = new LineBuffer();
    const text =
      line(ping) +
      line({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "t", progress: 1 },
      }) +
      line(done);
    const bytes = Buffer.from(text);
    buffer.append(bytes.subarray(0, 7));
    expect(buffer.readMessage()).toBeNull();
    buffer.append(bytes.subarray(7, line(ping).length + 5));
    expect(buffer.readMessage()).toEqual(ping);
    buffer.append(bytes.subarray(line(ping).length + 5));
    expect(buffer.readMessage()).toMatchObject({ method: "notifications/progress" });
    expect(buffer.readMessage()).toEqual(done);
    expect(buffer.readMessage()).toBeNull();
  });

  it("refuses a line that is not a JSON-RPC 2.0 message, and bad JSON", () => {
    expect(() => parseMessage('{"jsonrpc":"1.0","method":"x"}')).toThrow(
      "not a JSON-RPC 2.0 message",
    );
    expect(() => parseMessage('{"jsonrpc":"2.0","id":1}')).toThrow("not a JSON-RPC 2.0 message");
    expect(() => parseMessage("{nope")).toThrow(SyntaxError);
    expect(
      parseMessage(JSON.stringify({ jsonrpc: "2.0", id: "a", error: { code: 1, message: "m" } })),
    ).toMatchObject({ id: "a" });
  });
});
