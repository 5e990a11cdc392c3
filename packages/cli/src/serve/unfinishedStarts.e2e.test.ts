import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { chromiumSkipReason, launchChromium, watchedPage } from "../../testing/chromium.js";
import { serveOverStdio, shippedServer } from "../../testing/sdkServeClient.js";
import { runCli, tempDir } from "../../testing/spawnCli.js";
import { EXIT } from "../program/exitCodes.js";

// Issue 20.4: a server still starting when `serve` stops leaves a trace of where it was, and
// replay, explain and the view say why its tools were missing.

const STILL = 'extension "noinit" was still starting when the host stopped';

describe("servers still starting when serve stops (issue 20.4)", () => {
  test("are recorded, and replay, explain and the view say so", async () => {
    const dir = tempDir();
    const db = join(dir, "s.db");
    const c = await serveOverStdio(dir, {
      toolledger: { start_timeout: 300, startup_grace: 2 },
      mcpServers: {
        notes: { ...shippedServer("notes"), startup_grace: 60 },
        noinit: shippedServer("slowStart", "--hang-init"),
        nolist: shippedServer("faulty", "--hang-list"),
      },
    });
    const first = await c.names();
    expect(first).toContain("notes__add_note");
    await c.close();

    const sessions = await runCli(["sessions", "--all", "--json", "--db", db], { cwd: dir });
    const streams = JSON.parse(sessions.stdout) as { session: string; kind: string }[];
    const registry = streams.find((s) => s.kind === "registry")!.session;
    const conversation = streams.find((s) => s.kind === "conversation")!.session;

    const replay = await runCli(["replay", registry, "--db", db], { cwd: dir });
    expect(replay.stdout).toContain(
      `${STILL}: it had not finished starting (the process and its initialize) after`,
    );
    // Starting or listing, as far as it got on a loaded machine: either way, said.
    expect(replay.stdout).toMatch(
      /extension "nolist" was still starting when the host stopped: (its tools\/list had no answer after|it had not finished starting)/,
    );

    const explain = await runCli(
      ["explain", "noinit__ping", "--session", conversation, "--db", db],
      {
        cwd: dir,
      },
    );
    expect(explain.code).toBe(EXIT.notFound);
    expect(explain.stderr).toContain(`its extension noinit has no tools: ${STILL}`);

    if (chromiumSkipReason() !== null) return;
    const page = join(dir, "view.html");
    const view = await runCli(["view", conversation, "--db", db, "--out", page], { cwd: dir });
    expect(view.code).toBe(EXIT.ok);
    const browser = await launchChromium();
    try {
      const w = await watchedPage(browser);
      await w.page.goto(pathToFileURL(page).href);
      await expect
        .poll(() => w.page.locator("[data-testid=timeline]").textContent(), { timeout: 20_000 })
        .toContain(STILL);
      expect(
        await w.page.locator("[data-testid=state] [data-testid=diagnostics]").textContent(),
      ).toContain(STILL);
      expect(w.problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
