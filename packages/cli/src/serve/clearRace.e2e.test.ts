import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { sdkClientOverHttp } from "../../testing/sdkServeClient.js";
import { cleanEnv, runCli, SERVERS, tempDir } from "../../testing/spawnCli.js";
import { eventually, startServeHttp } from "../../testing/startServe.js";
import { describeEachStore } from "../../testing/testDatabases.js";

// L2 through the built `serve`: a client calls an enabled tool in a loop while `toolledger
// clear` runs again and again from other processes. Whatever the interleaving, the stored
// order is the decided order: the audit judges no call that ran as deferred and not enabled
// (D9). Before write-ahead, a call decided before a clear was stored after it, and 57 of 554
// calls were flagged.

interface AuditedCall {
  name: string;
  outcome: string | null;
  reason: string | null;
  registry: string | null;
}

describeEachStore("calls racing `toolledger clear` from another process (L2, D9)", (store) => {
  test("1,000 calls, clears in between: the audit flags none; the refused ones are the ones deferred", async () => {
    const dir = tempDir();
    const db = store.fresh(dir, "race");
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          calc: { command: process.execPath, args: [join(SERVERS, "calculator.js")] },
        },
      }),
    );
    const serve = await startServeHttp(
      ["--config", config, "--db", db, "--deferral", "lookup"],
      dir,
    );
    const c = await sdkClientOverHttp(serve.url, serve.stderr);
    try {
      await eventually(
        () => /conversation conv-\S+ opened/.test(serve.stderr()),
        "its conversation",
      );
      const conversation = /conversation (conv-\S+) opened/.exec(serve.stderr())?.[1];
      const enable = async () => {
        const r = await c.client.callTool({
          name: "enable_tools",
          arguments: { names: ["calc__calculate"] },
        });
        expect(r.isError, JSON.stringify(r)).toBeFalsy();
      };
      await enable();
      let done = false;
      let clears = 0;
      const clearing = (async () => {
        while (!done) {
          const r = await runCli(["clear", conversation!, "--db", db], {
            cwd: dir,
            env: cleanEnv(dir),
          });
          expect(r.code, r.stderr).toBe(0);
          clears++;
        }
      })();
      let ran = 0;
      let refused = 0;
      for (let i = 0; i < 1000; i++) {
        const r = await c.client.callTool({
          name: "calc__calculate",
          arguments: { expression: `${i} + 1` },
        });
        const text = JSON.stringify(r);
        if (text.includes(`${i} + 1 = ${i + 1}`)) ran++;
        else {
          // D9: the clear deferred it; enabled again, as a model would.
          expect(text).toContain("enable_tools");
          refused++;
          await enable();
        }
      }
      done = true;
      await clearing;
      expect(clears).toBeGreaterThan(2);
      expect(ran + refused).toBe(1000);
      await c.close();
      await serve.stop();

      const audit = await runCli(["audit", "--calls", "--json", "--db", db], {
        cwd: dir,
        env: cleanEnv(dir),
      });
      expect(audit.code, audit.stderr).toBe(0);
      const calls = (JSON.parse(audit.stdout) as { calls: AuditedCall[] }).calls.filter(
        (x) => x.name === "calc__calculate",
      );
      expect(calls).toHaveLength(1000);
      const flagged = calls.filter((x) => x.registry === "deferred" && x.outcome === "ok");
      expect(flagged, JSON.stringify(flagged, null, 1)).toEqual([]);
      expect(calls.filter((x) => x.outcome === "ok")).toHaveLength(ran);
      for (const x of calls.filter((x) => x.outcome === "refused")) {
        expect(x.reason).toBe("TOOL_NOT_ENABLED");
        expect(x.registry).toBe("deferred");
      }
    } finally {
      await c.close().catch(() => undefined);
      await serve.stop();
    }
  }, 300_000);
});
