import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { postInitialize } from "@toolledger/core/testing";
import { describe, expect, test } from "vitest";
import { cleanEnv, runCli, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { startServeHttp } from "../../testing/startServe.js";

// `serve --http` exposed beyond loopback: real HTTP requests against the built CLI.
const TOKEN = "e2e-token-0123456789abcdef-xyz";

function config(dir: string): string {
  const file = join(dir, "mcp.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { notes: { command: process.execPath, args: [join(SERVERS, "notes.js")] } },
    }),
  );
  return file;
}

async function post(
  url: URL,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const res = await postInitialize(url, headers, "e2e");
  return { status: res.status, body: await res.text() };
}

/** `serve --http 0` with the notes server and these flags, for the runs refused before any server starts. */
function serveHttpOnAnyPort(dir: string, flags: string[]): ReturnType<typeof runCli> {
  const args = ["serve", "--config", config(dir), "--http", "0", ...flags];
  return runCli([...args, "--db", join(dir, "s.db")], { cwd: dir });
}

describe("serve --http beyond loopback", () => {
  test("--host 0.0.0.0 without a token is a usage error before any server starts", async () => {
    const dir = tempDir();
    const r = await serveHttpOnAnyPort(dir, ["--host", "0.0.0.0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("binding to 0.0.0.0 needs a bearer token");
    expect(r.stderr).toContain("TOOLLEDGER_TOKEN");
  });

  test("with TOOLLEDGER_TOKEN: right token served; wrong or no token 401; bad Origin 403; the token never printed", async () => {
    const dir = tempDir();
    const serve = await startServeHttp(
      ["--config", config(dir), "--host", "0.0.0.0", "--db", join(dir, "s.db")],
      dir,
      cleanEnv(dir, { TOOLLEDGER_TOKEN: TOKEN }),
    );
    try {
      const url = new URL(`http://127.0.0.1:${new URL(serve.url).port}/mcp`);
      const right = await post(url, { authorization: `Bearer ${TOKEN}` });
      expect(right.status).toBe(200);
      expect(right.body).toContain('"serverInfo"');
      const wrong = await post(url, { authorization: `Bearer ${TOKEN.replace("e2e", "e3e")}` });
      const none = await post(url, {});
      expect([wrong.status, none.status]).toEqual([401, 401]);
      expect(wrong.body).toBe(none.body);
      expect(wrong.body).not.toContain(TOKEN);
      const origin = await post(url, {
        authorization: `Bearer ${TOKEN}`,
        origin: "http://evil.example",
      });
      expect(origin.status).toBe(403);
      expect(serve.stderr()).toContain("(bearer token required)");
    } finally {
      expect(await serve.stop()).toBe(130);
    }
    expect(serve.stderr()).not.toContain(TOKEN);
  }, 60_000);

  test("a token given with --token works, with a warning that it shows in the process list", async () => {
    const dir = tempDir();
    const serve = await startServeHttp(
      ["--config", config(dir), "--token", TOKEN, "--db", join(dir, "s.db")],
      dir,
    );
    expect(await serve.stop()).toBe(130);
    expect(serve.stderr()).toContain("--token is visible to every user of this machine");
    expect(serve.stderr()).toContain("(bearer token required)");
    expect(serve.stderr()).not.toContain(TOKEN);
  }, 60_000);

  test("a token shorter than 16 characters is refused", async () => {
    const dir = tempDir();
    const r = await serveHttpOnAnyPort(dir, ["--token", "short"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("fewer than 16 characters");
    expect(r.stderr).not.toContain("short\n");
  });
});
