import { getExtension } from "@toolledger/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdapterError } from "../adapterError.js";
import {
  openStandaloneConversation,
  type StandaloneConversation,
} from "../conversation/standaloneConversation.js";
import { describeConfig } from "../extensionConfig.js";
import { type RunningHttpServer, shipped, startHttpServer } from "../testing/fixtures.js";

const text = (outcome: Awaited<ReturnType<StandaloneConversation["callTool"]>>): string => {
  if (!outcome.ok) throw new Error(`call refused: ${outcome.error.message}`);
  return (outcome.result.content as { text: string }[]).map((c) => c.text).join("");
};

describe('a legacy HTTP+SSE server (goose `sse`, Cursor `"type": "sse"`)', () => {
  let sse: RunningHttpServer;
  let session: StandaloneConversation;
  const KEY = "sse-api-key-value";

  beforeAll(async () => {
    sse = await startHttpServer("sse");
    session = await openStandaloneConversation({ requestTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    await session?.close();
    await sse?.stop();
  });

  it("is connected with the SDK's SSE client: tools listed, calls answered, headers sent", async () => {
    const [result] = await session.addExtensions([
      { ...sse.config("legacy", { "x-api-key": KEY }), type: "sse" },
    ]);
    expect(result?.ok).toBe(true);
    expect(session.listTools().map((t) => t.publicName)).toEqual([
      "legacy__check_header",
      "legacy__echo",
    ]);
    expect(text(await session.callTool("legacy__echo", { value: "hi" }))).toBe("sse echo:hi");
    expect(text(await session.callTool("legacy__check_header"))).toBe("x-api-key present");
    expect(getExtension(session.state, "legacy")?.kind).toBe("sse");
  });

  it("an SSE URL that answers nothing is START_FAILED naming the URL", async () => {
    const dead = {
      ...sse.config("dead"),
      type: "sse" as const,
      url: "http://127.0.0.1:9/sse",
      startTimeoutMs: 3_000,
    };
    const [result] = await session.addExtensions([dead]);
    expect(result?.error?.code).toBe("START_FAILED");
    expect(result?.error?.message).toContain("SSE url http://127.0.0.1:9/sse");
  });
});

describe("what a stdio server inherits (baseEnv) and what it is told (env)", () => {
  let session: StandaloneConversation;
  beforeAll(async () => {
    session = await openStandaloneConversation();
  });
  afterAll(async () => {
    await session?.close();
  });

  it("baseEnv reaches the server under env; without it only the SDK's safe subset does", async () => {
    process.env.TOOLLEDGER_TEST_EXPORTED = "exported-by-the-user";
    try {
      await session.addExtensions([
        shipped("inherits", "environment", [], {
          baseEnv: { ...(process.env as Record<string, string>), SHADOWED: "base" },
          env: { SHADOWED: "env wins" },
        }),
        shipped("subset", "environment"),
      ]);
    } finally {
      delete process.env.TOOLLEDGER_TEST_EXPORTED;
    }
    const get = async (ext: string, name: string) =>
      text(await session.callTool(`${ext}__get_env`, { name }));
    expect(await get("inherits", "TOOLLEDGER_TEST_EXPORTED")).toBe("exported-by-the-user");
    expect(await get("inherits", "SHADOWED")).toBe("env wins");
    expect(await get("subset", "TOOLLEDGER_TEST_EXPORTED")).toBe("(unset)");
    expect(await get("subset", "PATH")).not.toBe("(unset)");
  });

  it("baseEnv is not part of the fingerprint: a changed environment does not replace the server (R6)", async () => {
    const before = getExtension(session.state, "inherits")?.configFingerprint;
    expect(before).toMatch(/^sha256:/);
    await session.addExtensions([
      shipped("inherits", "environment", [], {
        baseEnv: { OTHER: "environment" },
        env: { SHADOWED: "env wins" },
      }),
    ]);
    expect(getExtension(session.state, "inherits")?.configFingerprint).toBe(before);
  });
});

describe("per-server timeouts", () => {
  let session: StandaloneConversation;
  beforeAll(async () => {
    session = await openStandaloneConversation({ callTimeoutMs: 60_000, requestTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    await session?.close();
  });

  it("each server its own call timeout: quick at 1 s times out beside patient at 6 s", async () => {
    await session.addExtensions([
      shipped("quick", "faulty", [], { callTimeoutMs: 1_000 }),
      shipped("patient", "faulty", [], { callTimeoutMs: 6_000 }),
    ]);
    expect(text(await session.callTool("patient__slow", { ms: 2_500 }))).toBe("slept 2500");
    const quick = await session.callTool("quick__slow", { ms: 2_500 }).catch((e: unknown) => e);
    expect(quick).toBeInstanceOf(AdapterError);
    expect((quick as AdapterError).code).toBe("REQUEST_TIMEOUT");
    expect((quick as AdapterError).message).toContain("within 1000 ms");
  });

  it("each server its own start timeout", async () => {
    const [late, prompt] = await session.addExtensions([
      shipped("late", "slowStart", ["--delay-ms", "3000"], { startTimeoutMs: 500 }),
      shipped("prompt", "slowStart", ["--delay-ms", "300"]),
    ]);
    expect(late?.error?.code).toBe("START_FAILED");
    expect(late?.error?.message).toContain("the MCP handshake did not complete within 500 ms");
    expect(prompt?.ok).toBe(true);
  });
});

describe("secrets expanded into the command line", () => {
  it("never appear in a start failure, its event or describeConfig", async () => {
    const session = await openStandaloneConversation();
    try {
      const ARG_SECRET = "arg-secret-4242";
      const config = shipped("leaky", "faulty", ["--crash-on-start", `--token=${ARG_SECRET}`], {
        env: { FAULTY_TOKEN: "env-secret-1717" },
        secrets: [ARG_SECRET],
      });
      expect(describeConfig(config)).not.toContain(ARG_SECRET);
      const [result] = await session.addExtensions([config]);
      expect(result?.error?.code).toBe("START_FAILED");
      const events = JSON.stringify(await session.store.readStream(session.host.streamId));
      for (const text of [result?.error?.message ?? "", events]) {
        expect(text).toContain("[redacted]");
        expect(text).not.toContain(ARG_SECRET);
        expect(text).not.toContain("env-secret-1717");
      }
    } finally {
      await session.close();
    }
  });
});
