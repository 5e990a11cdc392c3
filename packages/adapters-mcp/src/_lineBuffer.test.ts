import { describe, expect, it } from "vitest";
import { LineBuffer, parseMessage } from "./_lineBuffer.js";

const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
const done = { jsonrpc: "2.0", id: 1, result: {} };

describe("LineBuffer (the gateway's stdio reader)", () => {
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

  it("keeps the SDK's size limit", () => {
    const buffer = new LineBuffer(16);
    expect(() => buffer.append(Buffer.from("x".repeat(17)))).toThrow(
      "exceeded maximum size of 16 bytes",
    );
    buffer.append(Buffer.from(line(done).slice(0, 10)));
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
