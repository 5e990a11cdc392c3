import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { ExtensionConnection } from "@toolledger/adapters-mcp";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { chromiumSkipReason, launchChromium, watchedPage } from "../../testing/chromium.js";
import { SERVERS, tempDir } from "../../testing/spawnCli.js";
import { eventually, type ServeProcess, startServeHttp } from "../../testing/startServe.js";

/** A GET with a chosen Host header (fetch does not let a test set it). */
function get(url: URL, host = url.host): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => {
        body += c.toString("utf8");
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe.skipIf(chromiumSkipReason() !== null)(
  "serve --http --view: the live view of the sessions a gateway serves",
  () => {
    let browser: Browser;
    let serve: ServeProcess;
    let client: ExtensionConnection;
    let base: URL;

    beforeAll(async () => {
      browser = await launchChromium();
      const dir = tempDir();
      const config = join(dir, "mcp.json");
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: { notes: { command: process.execPath, args: [join(SERVERS, "notes.js")] } },
        }),
      );
      serve = await startServeHttp(
        ["--config", config, "--db", join(dir, "s.db"), "--deferral", "lookup", "--view"],
        dir,
      );
      base = new URL("/view", serve.url);
      client = await ExtensionConnection.connect(
        { type: "streamable_http", name: "live", url: serve.url },
        { clientInfo: { name: "live-test", version: "1.0.0" }, connectTimeoutMs: 20_000 },
      );
    }, 60_000);

    afterAll(async () => {
      await client?.close();
      await serve?.stop();
      await browser?.close();
    });

    test("/view lists the conversation; its page shows it and grows as the client calls tools", async () => {
      expect(serve.stderr()).toContain(`live view at ${base.href}`);
      let index = "";
      await eventually(async () => {
        index = (await get(base)).body;
        return index.includes("/view/conv-");
      }, "the conversation in the index");
      const conversation = /href="\/view\/(conv-[^"]+)"/.exec(index)![1]!;

      const { page, problems, requests } = await watchedPage(browser);
      await page.goto(new URL(`/view/${conversation}`, serve.url).href);
      await page.waitForSelector("html[data-folded]");
      expect(await page.locator("[data-testid=live]").textContent()).toContain("live");
      const types = () => page.locator("[data-testid=timeline] .row .type").allTextContents();
      expect(await types()).toEqual(
        expect.arrayContaining(["ConversationStarted", "ToolsFetched"]),
      );
      expect(await types()).not.toContain("ToolCallFinished");

      // D9 then D5: a refused call, an enable, a call that goes through; the page follows.
      await client.callTool("notes__add_note", { title: "a", body: "b" }, { timeoutMs: 10_000 });
      await client.callTool("enable_tools", { names: ["notes__add_note"] }, { timeoutMs: 10_000 });
      await client.callTool("notes__add_note", { title: "a", body: "b" }, { timeoutMs: 10_000 });
      await page
        .locator("[data-testid=timeline] .row.ok", { hasText: "notes__add_note ok" })
        .waitFor();
      expect(
        await page.locator("[data-testid=timeline] .row", { hasText: "refused" }).count(),
      ).toBe(1);
      // The scrubber followed the end: the enabled tool is in the model view.
      await page
        .locator("[data-testid=state] [data-testid=enabled] li", { hasText: "notes__add_note" })
        .waitFor();
      expect(problems).toEqual([]);
      // Every request went to the gateway itself (the page, then its event stream).
      for (const url of requests) expect(new URL(url).origin).toBe(new URL(serve.url).origin);
    });

    test("the same access rules as the gateway: another Host is refused, unknown sessions are not shown", async () => {
      expect((await get(base, "evil.example:80")).status).toBe(403);
      const other = await get(new URL("/view/conv-not-served-here", serve.url));
      expect(other.status).toBe(404);
      expect((await get(new URL("/elsewhere", serve.url))).status).toBe(404);
    });
  },
);
