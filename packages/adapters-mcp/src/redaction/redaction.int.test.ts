import { findLeaks } from "@toolledger/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { AdapterError } from "../adapterError.js";
import {
  openStandaloneConversation,
  type StandaloneConversation,
} from "../conversation/standaloneConversation.js";
import { shipped, startHttpServer, waitFor } from "../testing/fixtures.js";

// Secrets as users paste them: a bearer token and an API key with characters that JSON and
// URL encoding change.
const TOKEN = "sk-live-4f9Qx7Lm2Zt8Rw1Vb6Nc3Hd5";
const KEY = 'pk_"quote"/slash\\back+plus=eq-0123456789';

const sessions: StandaloneConversation[] = [];
async function session(): Promise<StandaloneConversation> {
  const s = await openStandaloneConversation({ requestTimeoutMs: 2_000, connectTimeoutMs: 5_000 });
  sessions.push(s);
  s.errors$.subscribe((e) => errors.push(e.message));
  return s;
}
const errors: string[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  errors.length = 0;
});

/** Everything a session exposes that can reach a log, an event or an error. */
async function everything(s: StandaloneConversation, thrown: unknown[]): Promise<string> {
  return JSON.stringify({
    events: await s.store.readAll({ limit: 100_000 }),
    state: s.state,
    diagnostics: s.diagnostics(),
    extensions: s.extensions(),
    errors,
    thrown: thrown.map((e) => (e instanceof Error ? e.message : String(e))),
  });
}

describe("no secret reaches an event, a log line or an error (R6)", () => {
  it("a streamable-HTTP server answering 401 with a body that echoes the bearer token", async () => {
    const leaky = await startHttpServer("leaky", ["--http", "--port", "0"]);
    try {
      const s = await session();
      const [result] = await s.addExtensions([
        leaky.config("remote", { Authorization: `Bearer ${TOKEN}` }),
      ]);
      expect(result?.error?.code).toBe("START_FAILED");
      // The reason is still there, only the token is gone.
      expect(result?.error?.message).toContain("401");
      expect(result?.error?.message).toContain("[redacted]");
      const text = await everything(s, [result?.error]);
      expect(text).toContain("invalid_token");
      expect(findLeaks(text, TOKEN, { fragment: 8 })).toEqual([]);
    } finally {
      await leaky.stop();
    }
  });

  it("a stdio server that prints its env secret before the handshake, across the stderr tail's cut", async () => {
    const s = await session();
    const [result] = await s.addExtensions([
      shipped("leaky", "leaky", ["--when", "start"], { env: { LEAKY_SECRET: KEY } }),
    ]);
    expect(result?.error?.code).toBe("START_FAILED");
    expect(result?.error?.message).toContain("exited with code 3");
    const text = await everything(s, [result?.error]);
    expect(text).toContain("yyyy");
    expect(findLeaks(text, KEY, { fragment: 8 })).toEqual([]);
  });

  it("a stdio server that crashes mid-session after printing its secret", async () => {
    const s = await session();
    await s.addExtensions([shipped("leaky", "leaky", [], { env: { LEAKY_SECRET: TOKEN } })]);
    const thrown = await s.callTool("leaky__leak", {}).catch((e: unknown) => e);
    expect((thrown as AdapterError).code).toBe("CONNECTION_CLOSED");
    await waitFor(
      s.state$,
      () => s.diagnostics().some((d) => d.kind === "fetch_failed"),
      "the crash in the diagnostics",
    );
    const after = await s.callTool("leaky__echo", { value: "x" }).catch((e: unknown) => e);
    const text = await everything(s, [thrown, after]);
    expect(text).toContain("exited with code 4");
    expect(findLeaks(text, TOKEN, { fragment: 8 })).toEqual([]);
  });
});
