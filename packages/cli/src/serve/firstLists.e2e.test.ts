import { describe, expect, test } from "vitest";
import { resultText, serveOverStdio, shippedServer } from "../../testing/sdkServeClient.js";
import { tempDir } from "../../testing/spawnCli.js";

// Issue 34.2, 34.3 and 34.5 (G1, issue 20's startup grace): the first lists wait for the
// servers that can still come, and no longer than that; a call of a tool of a server that is
// not there says why at once.

describe("the first lists wait only for servers that can still come (issue 34.2, 34.3, 34.5)", () => {
  test("G1, issue 34.2: a server whose command does not exist is not waited for, and is said to have failed, not to be starting", async () => {
    const dir = tempDir();
    const c = await serveOverStdio(dir, {
      // Were the missing command waited for, the first list would wait this long.
      toolledger: { startup_grace: 600 },
      mcpServers: { ghost: { command: "/nonexistent" }, notes: shippedServer("notes") },
    });
    try {
      const first = await c.names();
      expect(first).toContain("notes__add_note");
      expect(first.some((n) => n.startsWith("ghost__"))).toBe(false);
      await expect.poll(c.stderr, { timeout: 30_000 }).toMatch(/serving .* over stdio/);
      const summary = c.stderr().match(/toolledger: serving .* over stdio.*/)![0];
      expect(summary).not.toContain("still starting");
      // Said while it waits for its second attempt: the first list did not wait for it
      // to run out of attempts either.
      expect(summary).toContain("failed to start: ghost; trying again");
      // A call of its tool says it is down and why, at once.
      const call = await c.client.callTool({ name: "ghost__anything", arguments: {} });
      expect(call.isError).toBe(true);
      expect(resultText(call)).toMatch(/extension "ghost" is unavailable/);
    } finally {
      await c.close();
    }
  }, 60_000);

  test("G1, issue 34.3: the first resources/list, templates and prompts/list wait for a server still starting, as tools/list does", async () => {
    const dir = tempDir();
    const c = await serveOverStdio(dir, {
      toolledger: { startup_grace: 120 },
      mcpServers: {
        slow: shippedServer("big", "--delay-ms", "1500", "--prompts", "3", "--resources", "2"),
      },
    });
    try {
      // The very first requests after initialize, as the Inspector's CLI makes them.
      const [resources, templates, prompts] = await Promise.all([
        c.client.listResources(),
        c.client.listResourceTemplates(),
        c.client.listPrompts(),
      ]);
      expect(resources.resources.map((r) => r.uri)).toEqual(["file:///r/000", "file:///r/001"]);
      expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual([
        "file:///t/000/{id}",
        "file:///t/001/{id}",
      ]);
      expect(prompts.prompts.map((p) => p.name)).toEqual([
        "slow__p_000",
        "slow__p_001",
        "slow__p_002",
      ]);
    } finally {
      await c.close();
    }
  }, 60_000);

  test("G1, issue 34.5: a call of a tool of a server that never started says so at once, once its grace is over", async () => {
    const dir = tempDir();
    const c = await serveOverStdio(dir, {
      toolledger: { start_timeout: 300, startup_grace: 1 },
      mcpServers: {
        hang: shippedServer("slowStart", "--hang-init"),
        // However loaded the machine, notes is in the first list.
        notes: { ...shippedServer("notes"), startup_grace: 60 },
      },
    });
    try {
      expect(await c.names()).toContain("notes__add_note");
      // Were it waited for up to the call timeout (60 s), this would time out first.
      const call = await c.client.callTool(
        { name: "hang__x", arguments: {} },
        {
          timeout: 20_000,
        },
      );
      expect(call.isError).toBe(true);
      const text = resultText(call);
      expect(text).toContain('extension "hang" has not started');
      expect(text).not.toContain("no tool named");
      // The other server works as before.
      const added = await c.client.callTool({
        name: "notes__add_note",
        arguments: { title: "t", body: "b" },
      });
      expect(added.isError).toBeFalsy();
    } finally {
      await c.close();
    }
  }, 60_000);
});
