// G1: @modelcontextprotocol/server-everything through the gateway behaves as it does
// directly, for a real SDK client: progress, sampling and elicitation round trips, log
// messages, resource read and subscribe updates, prompt get and completion. Over stdio (the
// gateway as a program, `toolledger serve`, the server over stdio) and over streamable HTTP (both hops HTTP).

import type { CallToolResult, Transport } from "@modelcontextprotocol/client";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openStandaloneConversation,
  type StandaloneConversation,
} from "../conversation/standaloneConversation.js";
import { everything, type RunningHttpServer, startEverythingHttp } from "../testing/fixtures.js";
import { serveStdioTransport } from "../testing/serveCli.js";
import type { HttpGateway } from "./gatewayOptions.js";
import { serveGatewayHttp } from "./serveGatewayHttp.js";

const SAMPLED = "a sampled reply from the test client's model";

interface Observed {
  /** Progress notifications on the wire (an SDK client may drop one read with its response). */
  progress: number;
  /** Progress the client's `onprogress` got. */
  progressHandled: number;
  sampling: { requests: number; result: string };
  elicitation: { requests: number; result: string };
  subscribeLogs: number;
  read: unknown;
  updated: boolean;
  prompt: unknown;
  completion: string[];
}

/** A real SDK client that declares sampling and elicitation and answers them like a host would. */
async function connect(transport: Transport) {
  const client = new Client(
    { name: "transparency-test", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  const seen = { sampling: 0, elicitation: 0, logs: [] as string[], updates: [] as string[] };
  client.setRequestHandler("sampling/createMessage", () => {
    seen.sampling++;
    return { role: "assistant", content: { type: "text", text: SAMPLED }, model: "test-model" };
  });
  client.setRequestHandler("elicitation/create", () => {
    seen.elicitation++;
    return { action: "accept", content: { name: "Ada Lovelace" } };
  });
  client.setNotificationHandler("notifications/message", (n) => {
    seen.logs.push(String(n.params.data));
  });
  client.setNotificationHandler("notifications/resources/updated", (n) => {
    seen.updates.push(n.params.uri);
  });
  await client.connect(transport);
  return { client, seen };
}

const textOf = (result: unknown) =>
  ((result as CallToolResult).content as { type: string; text?: string }[])
    .map((c) => c.text ?? "")
    .join("\n");

async function until(what: string, done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The same session against whatever `transport` reaches (server-everything, directly or not);
 * `ready` resolves when what is behind the transport serves (a gateway's servers started).
 */
async function observe(transport: Transport, ready?: () => Promise<void>): Promise<Observed> {
  const { client, seen } = await connect(transport);
  await ready?.();
  let progress = 0;
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ("method" in message && message.method === "notifications/progress") progress++;
    deliver?.(message, extra);
  };
  try {
    let progressHandled = 0;
    await client.request(
      {
        method: "tools/call",
        params: { name: "trigger-long-running-operation", arguments: { duration: 0.4, steps: 4 } },
      },
      { onprogress: () => progressHandled++ },
    );
    const sampled = await client.callTool({
      name: "trigger-sampling-request",
      arguments: { prompt: "Say hello", maxTokens: 20 },
    });
    const elicited = await client.callTool({ name: "trigger-elicitation-request", arguments: {} });

    await client.setLoggingLevel("debug");
    const { resources } = await client.listResources();
    const uri = resources[0]!.uri;
    const read = await client.readResource({ uri });
    await client.subscribeResource({ uri });
    await client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
    await until(`resources/updated for ${uri}`, () => seen.updates.includes(uri));
    await until("the subscribe log message", () =>
      seen.logs.some((l) => l.startsWith(`Received Subscribe Resource request for URI: ${uri}`)),
    );
    await client.unsubscribeResource({ uri });

    const prompt = await client.getPrompt({ name: "simple-prompt" });
    const { completion } = await client.complete({
      ref: { type: "ref/prompt", name: "completable-prompt" },
      argument: { name: "department", value: "E" },
    });
    return {
      progress,
      progressHandled,
      sampling: { requests: seen.sampling, result: textOf(sampled) },
      elicitation: { requests: seen.elicitation, result: textOf(elicited) },
      subscribeLogs: seen.logs.filter((l) =>
        l.startsWith(`Received Subscribe Resource request for URI: ${uri}`),
      ).length,
      read: read.contents,
      updated: seen.updates.includes(uri),
      prompt: prompt.messages,
      completion: completion.values,
    };
  } finally {
    await client.close();
  }
}

function expectTransparent(direct: () => Observed, through: () => Observed) {
  it("sees what it sees directly (G1)", () => {
    // Directly, the SDK client sometimes drops the last report (read with the response); the
    // gateway pings before such a response, so its client handles every one.
    const { progressHandled: _direct, ...seenDirectly } = direct();
    const { progressHandled: _through, ...seenThrough } = through();
    expect(seenThrough).toEqual(seenDirectly);
  });

  it("progress, sampling and elicitation make full round trips to the client", () => {
    const o = through();
    expect(o.progress).toBe(4);
    expect(o.progressHandled).toBe(4);
    expect(o.sampling.requests).toBe(1);
    expect(o.sampling.result).toContain(SAMPLED);
    expect(o.elicitation.requests).toBe(1);
    expect(o.elicitation.result).toContain("Ada Lovelace");
    expect(o.subscribeLogs).toBe(1);
    expect(o.updated).toBe(true);
    expect(o.completion.length).toBeGreaterThan(0);
  });
}

describe("G1 transparency with server-everything over stdio", () => {
  let direct: Observed;
  let through: Observed;
  let remove = () => {};

  beforeAll(async () => {
    const server = everything();
    direct = await observe(
      new StdioClientTransport({
        command: server.command,
        args: server.args ?? [],
        stderr: "pipe",
      }),
    );
    const served = serveStdioTransport([{ ...everything(), exposeUnprefixed: true }]);
    remove = served.remove;
    through = await observe(served.transport, () => served.ready());
  }, 120_000);

  afterAll(() => remove());

  expectTransparent(
    () => direct,
    () => through,
  );
});

describe("G1 transparency with server-everything over streamable HTTP", () => {
  let upstream: RunningHttpServer;
  let session: StandaloneConversation;
  let gateway: HttpGateway;
  let direct: Observed;
  let through: Observed;

  beforeAll(async () => {
    upstream = await startEverythingHttp();
    session = await openStandaloneConversation();
    await session.addExtension({ ...upstream.config("everything"), exposeUnprefixed: true });
    gateway = await serveGatewayHttp(session, { port: 0 });
    direct = await observe(new StreamableHTTPClientTransport(new URL(upstream.url)));
    through = await observe(new StreamableHTTPClientTransport(gateway.url));
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await session?.close();
    await upstream?.stop();
  });

  expectTransparent(
    () => direct,
    () => through,
  );
});
