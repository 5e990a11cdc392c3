import { PassThrough } from "node:stream";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { answerToolCalls, type ToolCallHandler } from "./answerToolCalls.js";
import { StdioLineServerTransport } from "./stdioServerTransport.js";

// Issue 20 (bench 5a): over stdio a plain tools/call is answered with the server's result the
// moment it arrives (`extra.answerNow`), before the call's own chain of awaits and its
// recording run; the answer is the one the handler would have given (G2), and it is sent once.

interface Wire {
  send(message: object): void;
  /** Every line written so far, parsed. */
  lines(): Record<string, unknown>[];
  errors: Error[];
  close(): Promise<void>;
}

const opened: Wire[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((w) => w.close()));
});

async function serve(handle: ToolCallHandler): Promise<Wire> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let text = "";
  stdout.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
  const errors: Error[] = [];
  server.onerror = (error) => errors.push(error);
  const transport = new StdioLineServerTransport(stdin, stdout);
  await server.connect(transport);
  answerToolCalls(server, transport, handle);
  const wire: Wire = {
    send: (message) => stdin.write(`${JSON.stringify(message)}\n`),
    lines: () =>
      text
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    errors,
    close: () => server.close(),
  };
  opened.push(wire);
  return wire;
}

const call = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "t", arguments: {} },
});
const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });

/** Lets every pending callback and I/O of this turn run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("answerToolCalls: the server's result answers the client as it arrives", () => {
  it("sends the result given to answerNow before the handler returns, and nothing after it", async () => {
    const late = gate();
    const wire = await serve(async (_params, extra) => {
      extra.answerNow?.(text("as it arrived"));
      await late.promise;
      return text("what the handler returned");
    });
    wire.send(call(1));
    await settle();
    expect(wire.lines()).toEqual([{ jsonrpc: "2.0", id: 1, result: text("as it arrived") }]);
    late.open();
    await settle();
    await settle();
    expect(wire.lines()).toHaveLength(1);
    expect(wire.errors).toEqual([]);
  });

  it("leaves a result MCP does not allow to the handler's answer: InvalidParams, as the SDK answers", async () => {
    const bad = { content: "not a list" };
    const wire = await serve(async (_params, extra) => {
      extra.answerNow?.(bad);
      return bad as never;
    });
    wire.send(call(2));
    await settle();
    await settle();
    const lines = wire.lines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ id: 2, error: { code: ProtocolErrorCode.InvalidParams } });
  });

  it("sends nothing for a call the client cancelled before its result arrived", async () => {
    const arrived = gate();
    const wire = await serve(async (_params, extra) => {
      await arrived.promise;
      extra.answerNow?.(text("too late"));
      return text("too late");
    });
    wire.send(call(3));
    wire.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 3, reason: "user stopped it" },
    });
    await settle();
    arrived.open();
    await settle();
    await settle();
    expect(wire.lines()).toEqual([]);
  });

  it("reports a failure after the answer went out instead of answering twice", async () => {
    const wire = await serve(async (_params, extra) => {
      extra.answerNow?.(text("answered"));
      throw new Error("recording broke");
    });
    wire.send(call(4));
    await settle();
    await settle();
    expect(wire.lines()).toEqual([{ jsonrpc: "2.0", id: 4, result: text("answered") }]);
    expect(wire.errors.map((e) => e.message)).toEqual([
      "tools/call failed after its answer was sent: recording broke",
    ]);
  });
});

describe("StdioLineServerTransport: what the client waits for is written at once", () => {
  it("writes a lone response within send, and a response sent behind queued notifications after them", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = new StdioLineServerTransport(stdin, stdout);
    await transport.start();
    const read = () => (stdout.read() as Buffer | null)?.toString("utf8") ?? "";
    void transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    // Written before send returned: no turn of the event loop in between.
    expect(read()).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n');
    transport.post({ jsonrpc: "2.0", method: "notifications/progress", params: { n: 1 } });
    void transport.send({ jsonrpc: "2.0", method: "notifications/message", params: { n: 2 } });
    const answered = transport.send({ jsonrpc: "2.0", id: 2, result: {} });
    expect(read()).toBe("");
    await answered;
    expect(read().split("\n")).toEqual([
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":1}}',
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"n":2}}',
      '{"jsonrpc":"2.0","id":2,"result":{}}',
      "",
    ]);
    await transport.close();
  });
});
