import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { describe, expect, test } from "vitest";
import {
  resultText,
  type SdkClientOfServe,
  sdkClientOverHttp,
  serveOverStdio,
  shippedServer,
} from "../../testing/sdkServeClient.js";
import { runCli, tempDir } from "../../testing/spawnCli.js";
import { startServeHttp } from "../../testing/startServe.js";

// Issue 34.1 (V3): no message the gateway writes exceeds what clients read. The SDK's stdio
// client stops at 10 MiB a message and then closes the connection: every served list is paged
// within a byte budget (`nextCursor`), and a single definition over the cap is refused (a
// warning on stderr, recorded with the listing).

const MIB = 1024 * 1024;
/** What the SDK's stdio client reads at most in one message. */
const SDK_STDIO_LIMIT = 10 * MIB;

type ListMethod = "tools" | "prompts" | "resources" | "resourceTemplates";

/** Every page of a list, as a patient client reads it: the pages' items and their JSON sizes. */
async function allPages(
  client: Client,
  list: ListMethod,
): Promise<{ names: string[]; pageBytes: number[] }> {
  const names: string[] = [];
  const pageBytes: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const params = cursor === undefined ? {} : { cursor };
    const options = { timeout: 120_000 };
    // One page per request: SDK 2's listTools() and the like read every page into one list
    // when asked without a cursor; `request` sends the list request as it is.
    const method = list === "resourceTemplates" ? "resources/templates/list" : `${list}/list`;
    const page = (await client.request(
      { method, params } as { method: "tools/list" },
      options,
    )) as {
      nextCursor?: string;
    };
    pageBytes.push(Buffer.byteLength(JSON.stringify(page)));
    const items = (page as Record<string, unknown>)[list] as {
      name?: string;
      uri?: string;
      uriTemplate?: string;
    }[];
    names.push(...items.map((x) => x.uriTemplate ?? x.uri ?? x.name ?? ""));
    if (page.nextCursor === undefined) return { names, pageBytes };
    cursor = page.nextCursor;
  }
  throw new Error(`${list}: more than 100 pages`);
}

/** Two servers as issue 34.1 found them: a 10 MiB tool beside 11 MiB of ordinary definitions. */
const GIANTS = {
  huge: shippedServer("big", "--list-mb", "10", "--huge-kb", "2048"),
  many: shippedServer(
    "big",
    ...["--tools", "110", "--tool-kb", "100"],
    ...["--prompts", "100", "--resources", "100", "--item-kb", "100"],
  ),
};

const n3 = (i: number) => String(i).padStart(3, "0");
const manyTools = Array.from({ length: 110 }, (_, i) => `many__t_${n3(i)}`);

/** What a client of the giants must see: every ordinary definition, in pages it can read, and no giant. */
async function expectGiantsServed(c: SdkClientOfServe): Promise<void> {
  const tools = await allPages(c.client, "tools");
  expect(tools.pageBytes.length).toBeGreaterThan(1);
  for (const bytes of tools.pageBytes) expect(bytes).toBeLessThan(SDK_STDIO_LIMIT);
  expect(tools.names).toEqual(
    expect.arrayContaining([...manyTools, "many__measure", "huge__blob"]),
  );
  expect(tools.names).not.toContain("huge__measure");
  expect(new Set(tools.names).size).toBe(tools.names.length);

  const prompts = await allPages(c.client, "prompts");
  expect(prompts.pageBytes.length).toBeGreaterThan(1);
  for (const bytes of prompts.pageBytes) expect(bytes).toBeLessThan(SDK_STDIO_LIMIT);
  expect(prompts.names.sort()).toEqual(Array.from({ length: 100 }, (_, i) => `many__p_${n3(i)}`));

  const resources = await allPages(c.client, "resources");
  expect(resources.pageBytes.length).toBeGreaterThan(1);
  expect(resources.names.sort()).toEqual(
    Array.from({ length: 100 }, (_, i) => `file:///r/${n3(i)}`),
  );
  const templates = await allPages(c.client, "resourceTemplates");
  expect(templates.pageBytes.length).toBeGreaterThan(1);
  expect(templates.names.sort()).toEqual(
    Array.from({ length: 100 }, (_, i) => `file:///t/${n3(i)}/{id}`),
  );

  // The connection is still there, and the other servers' tools with it.
  const measured = await c.client.callTool({ name: "many__measure", arguments: { value: "abc" } });
  expect(resultText(measured)).toBe("received 3 characters");
  expect(resultText(await c.client.callTool({ name: "many__t_109", arguments: {} }))).toBe(
    "t_109 ran",
  );
}

describe("V3: served lists fit what clients read (issue 34.1)", () => {
  test("over stdio, the SDK's client pages through every list; the giant definitions are refused, said and recorded", async () => {
    const dir = tempDir();
    const c = await serveOverStdio(dir, { mcpServers: GIANTS }, ["--pinning", "off"]);
    try {
      await expectGiantsServed(c);
      const stderr = c.stderr();
      expect(stderr).toMatch(
        /warning:.*huge: tool "measure" is 10\.0 MiB, over the limit of 1\.0 MiB/,
      );
      expect(stderr).toMatch(/huge: prompt "huge_prompt" is 2\.0 MiB, over the limit of 1\.0 MiB/);
      expect(stderr).toMatch(/huge: resource "file:\/\/\/huge" is 2\.0 MiB/);
      expect(stderr).toMatch(/huge: resource template "file:\/\/\/huge\/\{id\}" is 2\.0 MiB/);
      expect(stderr).toContain("--max-definition-kb");
    } finally {
      await c.close();
    }
    // Recorded with the listing: explain says why the tool is not served, from the log.
    const db = join(dir, "s.db");
    const sessions = await runCli(["sessions", "--all", "--json", "--db", db], { cwd: dir });
    const conversation = (JSON.parse(sessions.stdout) as { session: string; kind: string }[]).find(
      (s) => s.kind === "conversation",
    )!.session;
    const explain = await runCli(
      ["explain", "huge__measure", "--session", conversation, "--db", db],
      { cwd: dir },
    );
    expect(explain.stdout + explain.stderr).toMatch(
      /V3.*tool "measure" is 10\.0 MiB, over the limit of 1\.0 MiB/s,
    );
  }, 180_000);

  test("over streamable HTTP, the SDK's client gets the same pages", async () => {
    const dir = tempDir();
    const config = join(dir, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: GIANTS }));
    const serve = await startServeHttp(
      ["--config", config, "--db", join(dir, "s.db"), "--pinning", "off"],
      dir,
    );
    try {
      const c = await sdkClientOverHttp(serve.url, serve.stderr);
      try {
        await expectGiantsServed(c);
      } finally {
        await c.close();
      }
    } finally {
      await serve.stop();
    }
  }, 180_000);

  test("the cap is the config file's toolledger.max_definition_kb, and --max-definition-kb wins over it", async () => {
    const dir = tempDir();
    const servers = {
      many: shippedServer("big", "--tools", "3", "--tool-kb", "100"),
    };
    // 64 KiB: the 100 KiB tools are refused.
    const capped = await serveOverStdio(
      dir,
      { toolledger: { max_definition_kb: 64 }, mcpServers: servers },
      ["--pinning", "off"],
    );
    try {
      expect(await capped.names()).toEqual(["many__blob", "many__measure"]);
      expect(capped.stderr()).toMatch(/tool "t_000" is 100\.\d KiB, over the limit of 64\.0 KiB/);
    } finally {
      await capped.close();
    }
    // `tools` reads the same key (the file serve was given).
    const tools = await runCli(["tools", "--config", join(dir, "mcp.json")], { cwd: dir });
    expect(tools.stdout).toContain("many__measure");
    expect(tools.stdout).not.toContain("many__t_000");
    expect(tools.stdout + tools.stderr).toMatch(
      /tool "t_000" is 100\.\d KiB, over the limit of 64\.0 KiB/,
    );
    const raised = await serveOverStdio(
      tempDir(),
      { toolledger: { max_definition_kb: 64 }, mcpServers: servers },
      ["--pinning", "off", "--max-definition-kb", "200"],
    );
    try {
      expect(await raised.names()).toEqual([
        "many__blob",
        "many__measure",
        "many__t_000",
        "many__t_001",
        "many__t_002",
      ]);
    } finally {
      await raised.close();
    }
  }, 90_000);

  test("a cap clients could not read is refused before anything starts", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
    const r = await runCli(
      ["serve", "--config", join(dir, "mcp.json"), "--max-definition-kb", "20000"],
      { cwd: dir },
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--max-definition-kb.*at most 8064/);
  }, 30_000);
});
