import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { StoredEvent } from "@toolledger/core";
import { describe, expect, test } from "vitest";
import { resultText, serveOverStdio, shippedServer } from "../../testing/sdkServeClient.js";
import { tempDir } from "../../testing/spawnCli.js";
import { eventually } from "../../testing/startServe.js";
import { startTestServer } from "../../testing/startTestServer.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { openStore } from "../session/openStore.js";

// V1 (issue 36, upstream side): which era each server is reached in is the user's to pin
// (protocol_era per server, serve --protocol-era, the file's toolledger.protocol_era), a pin
// the server refuses is said at once, and a server is probed once: its verdict is reused by
// a restart in the same serve and by the next serve on the same database.

async function eraEvents(db: string): Promise<Record<string, unknown>[]> {
  const store = await openStore(resolveDatabasePath(db, {}, "/", "/"), "read");
  try {
    const all: StoredEvent[] = await store.readAll({ after: 0, limit: 100_000 });
    return all
      .map((e) => e.event as Record<string, unknown>)
      .filter((e) => e.type === "ExtensionEraDetected");
  } finally {
    await store.close();
  }
}

const starts = (file: string) => {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("start ")).length;
  } catch {
    return 0;
  }
};

describe("V1 protocol_era and the era verdict's reuse through `toolledger serve`", () => {
  test("V1 a server's own protocol_era wins over --protocol-era, which wins over the file's; legacy against a modern-only server fails at once, naming the server and the setting (stdio and HTTP)", async () => {
    const dir = tempDir();
    const db = join(dir, "s.db");
    const h = await startTestServer("modernOnly", "--http");
    const c = await serveOverStdio(
      dir,
      {
        toolledger: { protocol_era: "modern" },
        mcpServers: {
          m: shippedServer("modernOnly"),
          h: { url: h.url },
          d: { ...shippedServer("dualEra"), protocol_era: "modern" },
          l: { ...shippedServer("dualEra"), protocol_era: "auto" },
        },
      },
      ["--protocol-era", "legacy"],
    );
    try {
      const names = await c.until(
        (n) => n.includes("d__era") && n.includes("l__era"),
        "d and l listed",
      );
      expect(names.filter((n) => n.startsWith("m__") || n.startsWith("h__"))).toEqual([]);
      expect(resultText(await c.client.callTool({ name: "d__era", arguments: {} }))).toBe("modern");
      expect(resultText(await c.client.callTool({ name: "l__era", arguments: {} }))).toBe("modern");
      for (const server of ["m", "h"])
        await eventually(
          () =>
            c
              .stderr()
              .includes(`error: extension "${server}" refused the MCP 2025-11-25 handshake`),
          `${server}'s refusal on stderr`,
        );
      const said = c.stderr();
      expect(said).toContain(
        "its protocol era is set to legacy (protocol_era: legacy in its config, or serve --protocol-era legacy); set protocol_era to auto or modern",
      );
      // A restart cannot cure it: no second attempt.
      expect(said).toMatch(/extension "m" refused[^\n]*\(1 attempt\(s\); giving up/);
    } finally {
      await c.close();
      await h.stop();
    }
    const byServer = Object.fromEntries((await eraEvents(db)).map((e) => [e.extension, e]));
    expect(byServer.d).toMatchObject({
      era: "modern",
      how: "pinned",
      protocolVersion: "2026-07-28",
    });
    expect(byServer.l).toMatchObject({ era: "modern", how: "discover" });
    expect(byServer.m).toBeUndefined();
    expect(byServer.h).toBeUndefined();
  }, 90_000);

  test("V1 probed once: a crashed server restarts with the kept verdict (no probe process), and the next serve on the database reuses the logged verdict without a probe", async () => {
    const dir = tempDir();
    const db = join(dir, "s.db");
    const mLog = join(dir, "m.log");
    const gLog = join(dir, "g.log");
    const config = {
      mcpServers: {
        m: shippedServer("modernOnly", "--log", mLog),
        g: shippedServer("dualEra", "--legacy-only", "--log", gLog),
      },
    };
    const first = await serveOverStdio(dir, config);
    try {
      await first.until((n) => n.includes("m__era") && n.includes("g__era"), "both listed");
      expect(resultText(await first.client.callTool({ name: "g__era", arguments: {} }))).toBe(
        "legacy",
      );
      // The SDK probes a stdio server on a sibling process, then starts the session's own.
      expect(starts(mLog)).toBe(2);
      expect(starts(gLog)).toBe(2);
      await first.client.callTool({ name: "m__crash", arguments: {} });
      await eventually(() => starts(mLog) === 3, "m restarted");
      await eventually(
        () =>
          first.client.callTool({ name: "m__era", arguments: {} }).then(
            (r) => resultText(r) === "modern",
            () => false,
          ),
        "m answering again",
      );
      expect(starts(mLog)).toBe(3);
    } finally {
      await first.close();
    }
    expect((await eraEvents(db)).map((e) => [e.extension, e.era, e.how]).sort()).toEqual([
      ["g", "legacy", "initialize"],
      ["m", "modern", "discover"],
    ]);
    const second = await serveOverStdio(dir, config);
    try {
      await second.until((n) => n.includes("m__era") && n.includes("g__era"), "both listed");
      expect(resultText(await second.client.callTool({ name: "m__era", arguments: {} }))).toBe(
        "modern",
      );
      // The modern server's listen stream is open in this serve too.
      await second.client.callTool({ name: "m__add_tool", arguments: { name: "later" } });
      await second.until((n) => n.includes("m__later"), "m__later");
      expect(starts(mLog)).toBe(4);
      expect(starts(gLog)).toBe(3);
    } finally {
      await second.close();
    }
    // Its own registry stream says the same verdict, reached as before (not probed again).
    const verdicts = (await eraEvents(db)).map((e) => [
      e.extension,
      e.era,
      e.how,
      e.protocolVersion,
    ]);
    expect(verdicts).toHaveLength(4);
    expect(verdicts.slice(2).sort()).toEqual(verdicts.slice(0, 2).sort());
  }, 90_000);
});
