import { join } from "node:path";
import { Client, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SqliteEventStore } from "@toolledger/store-sqlite";
import { describe, expect, test } from "vitest";
import { resultText, serveOverStdio, shippedServer } from "../../testing/sdkServeClient.js";
import { CLI, cleanEnv, tempDir } from "../../testing/spawnCli.js";

// Issue 20 (bench 5a): over stdio, `serve` answers a plain tools/call straight from its
// transport and sends its own requests straight over each server's transport, beside the
// SDK's dispatch. Through the built `serve`, with the SDK's own client: every answer is the
// one the SDK's dispatch gave (G2), a cancellation still reaches the server (G1), and a
// server's request made during such a call still reaches the client that made it.

async function rejection(promise: Promise<unknown>): Promise<ProtocolError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  return error as ProtocolError;
}

describe("serve's direct path for a plain tools/call (stdio), with the SDK's client", () => {
  test("results, a server's JSON-RPC error, a result MCP does not allow, and what the direct path leaves to the SDK", async () => {
    const c = await serveOverStdio(tempDir(), {
      mcpServers: { raw: shippedServer("storm"), ref: shippedServer("reference") },
    });
    try {
      await c.until(
        (n) => n.includes("raw__rpc_error") && n.includes("ref__test_simple_text"),
        "ready",
      );
      const ok = await c.client.callTool({ name: "raw__stats", arguments: {} });
      expect(JSON.parse(resultText(ok))).toMatchObject({ lists: expect.any(Number) });
      // G2: the server's own error passes through with its code and data.
      const refused = await rejection(c.client.callTool({ name: "raw__rpc_error", arguments: {} }));
      expect(refused.code).toBe(-32050);
      expect(refused.message).toContain("storm refuses");
      expect(refused.data).toEqual({ why: "asked" });
      // A result that is no CallToolResult is refused as the SDK server refuses it.
      const bad = await rejection(c.client.callTool({ name: "raw__bad_result", arguments: {} }));
      expect(bad.code).toBe(ProtocolErrorCode.InvalidParams);
      expect(bad.message).toMatch(/Invalid tools\/call result/);
      // An unknown name is a protocol error (G2), from the same handler.
      const unknown = await rejection(c.client.callTool({ name: "raw__nope", arguments: {} }));
      expect(unknown.code).toBe(ProtocolErrorCode.InvalidParams);
      // Arguments that are no object: not a plain call, so the SDK's dispatch answers it, as
      // it always did; SDK 2 says InvalidParams with its schema's complaint (SDK 1 said
      // InternalError; decisions.md).
      const invalid = await rejection(
        c.client.request({
          method: "tools/call",
          params: { name: "raw__stats", arguments: [] as never },
        }),
      );
      expect(invalid.code).toBe(ProtocolErrorCode.InvalidParams);
      expect(invalid.message).toMatch(/Invalid tools\/call request/);
      expect(invalid.message).toMatch(/record/);
      // With a progress token (`_meta`) the SDK's dispatch answers too, and the reports arrive.
      let reports = 0;
      const progressed = await c.client.request(
        { method: "tools/call", params: { name: "ref__test_tool_with_progress", arguments: {} } },
        { onprogress: () => reports++ },
      );
      expect(progressed.isError).toBeFalsy();
      expect(reports).toBeGreaterThan(0);
      // Still serving after all of it.
      expect(
        resultText(await c.client.callTool({ name: "ref__test_simple_text", arguments: {} })),
      ).toBe("This is a simple text response for testing.");
    } finally {
      await c.close();
    }
  }, 60_000);

  test("a client's cancellation reaches the server, is recorded as cancelled, and gets no answer", async () => {
    const dir = tempDir();
    const c = await serveOverStdio(dir, { mcpServers: { faulty: shippedServer("faulty") } });
    const errors: Error[] = [];
    c.client.onerror = (e) => errors.push(e);
    try {
      await c.until((n) => n.includes("faulty__slow"), "faulty ready");
      const controller = new AbortController();
      const slow = c.client.callTool(
        { name: "faulty__slow", arguments: { ms: 20_000 } },
        {
          signal: controller.signal,
        },
      );
      setTimeout(() => controller.abort("the user pressed stop"), 300);
      await expect(slow).rejects.toThrow(/the user pressed stop/);
      await new Promise((r) => setTimeout(r, 300));
      // The server was told (its `slow` counts the cancellations it received).
      const stats = await c.client.callTool({ name: "faulty__stats", arguments: {} });
      expect(JSON.parse(resultText(stats))).toEqual({ cancelled: 1 });
      // No answer came for the cancelled request (the SDK client reports one it did not expect).
      expect(errors.map((e) => e.message)).toEqual([]);
    } finally {
      await c.close();
    }
    const store = SqliteEventStore.open(join(dir, "s.db"), { readOnly: true });
    try {
      const finishes = (await store.readAll({ limit: 10_000 }))
        .map((e) => e.event)
        .filter((e) => e.type === "ToolCallFinished");
      expect(finishes.map((e) => e.outcome)).toEqual(["cancelled", "ok"]);
    } finally {
      await store.close();
    }
  }, 60_000);

  test("a server's sampling request during a plain call reaches the client that made it", async () => {
    const dir = tempDir();
    const config = join(dir, "mcp.json");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(config, JSON.stringify({ mcpServers: { ref: shippedServer("reference") } }));
    const client = new Client(
      { name: "sampling-client", version: "1.0.0" },
      { capabilities: { sampling: {} } },
    );
    const asked: string[] = [];
    client.setRequestHandler("sampling/createMessage", async (request) => {
      const first = request.params.messages[0]?.content as { text?: string };
      asked.push(first.text ?? "");
      return {
        role: "assistant",
        model: "stub-model",
        content: { type: "text", text: "forty-two" },
      };
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--config", config, "--db", join(dir, "s.db")],
        env: cleanEnv(dir),
        cwd: dir,
        stderr: "pipe",
      }),
    );
    try {
      const answer = await client.callTool(
        { name: "ref__test_sampling", arguments: { prompt: "the answer?" } },
        { timeout: 30_000 },
      );
      expect(asked).toEqual(["the answer?"]);
      expect(resultText(answer)).toContain("forty-two");
    } finally {
      await client.close();
    }
  }, 60_000);
});
