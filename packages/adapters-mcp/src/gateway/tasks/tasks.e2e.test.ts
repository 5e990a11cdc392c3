// Issue 27 (G4, C6): MCP tasks through the built `toolledger serve`, with the published
// server-everything (its `simulate-research-query` requires a task) and server-memory (no
// task support) as real upstreams, and the MCP SDK's own task client.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// SDK 1.x client (devDependency) as a real legacy client: SDK 2 has no client for 2025 tasks (SEP-2663).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  RELATED_TASK_META_KEY,
  type Task,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everything, memory } from "../../testing/fixtures.js";
import {
  CLI_MAIN,
  cleanServeEnv,
  runCli,
  type ServeHttpProcess,
  serveOverHttp,
  serveStdioTransport,
} from "../../testing/serveCli.js";

const RESEARCH = "everything__simulate-research-query";

interface TaskClient {
  client: Client;
  /** Every `notifications/tasks/status` this client got, in order. */
  statuses: Task[];
  /** The related-task id of every elicitation this client was asked. */
  elicited: (string | null)[];
}

async function taskClient(url: URL, name: string, tasks = true): Promise<TaskClient> {
  const client = new Client(
    { name, version: "1.0.0" },
    { capabilities: { elicitation: {}, ...(tasks ? { tasks: {} } : {}) } },
  );
  const seen: TaskClient = { client, statuses: [], elicited: [] };
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
    seen.statuses.push(n.params as Task);
  });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    const related = request.params._meta?.[RELATED_TASK_META_KEY] as
      | { taskId?: string }
      | undefined;
    seen.elicited.push(related?.taskId ?? null);
    return { action: "accept", content: { interpretation: "programming" } };
  });
  await client.connect(new StreamableHTTPClientTransport(url));
  return seen;
}

const textOf = (result: unknown) =>
  ((result as CallToolResult).content as { type: string; text?: string }[])
    .map((c) => c.text ?? "")
    .join("\n");

async function until<T>(what: string, get: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await get();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The recorded conversations of a stopped serve, by client name. */
async function conversations(db: string, cwd: string): Promise<Map<string, string>> {
  const r = await runCli(["sessions", "--db", db, "--json"], cwd);
  expect(r.code, r.stderr).toBe(0);
  const rows = JSON.parse(r.stdout) as { session: string; client: string | null }[];
  return new Map(
    rows.filter((row) => row.client).map((row) => [row.client!.split(" ")[0]!, row.session]),
  );
}

describe("G4/C6 tasks through toolledger serve (server-everything, server-memory, the SDK's task client)", () => {
  let dir: string;
  let serve: ServeHttpProcess;
  let alice: TaskClient;
  let bob: TaskClient;
  let plain: TaskClient;
  let research: { messages: { type: string; task?: Task; result?: unknown }[]; taskId: string };
  let cancelled: { task: Task; taskId: string; again: unknown };
  let local: { created: Task; final: Task; result: unknown };
  let onBehalf: CallToolResult;
  let db: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolledger-tasks-"));
    serve = await serveOverHttp([everything(), memory(join(dir, "memory.json"))]);
    db = serve.db;
    alice = await taskClient(serve.url, "alice");
    bob = await taskClient(serve.url, "bob");
    plain = await taskClient(serve.url, "plain", false);
    await until("server-everything's research tool", async () =>
      (await alice.client.listTools()).tools.some((t) => t.name === RESEARCH) ? true : undefined,
    );
    // Through the SDK's task client: created, statuses, an elicitation, the result.
    const messages: { type: string; task?: Task; result?: unknown }[] = [];
    for await (const m of alice.client.experimental.tasks.callToolStream(
      { name: RESEARCH, arguments: { topic: "python", ambiguous: true } },
      CallToolResultSchema,
      { timeout: 60_000 },
    )) {
      messages.push(m as never);
      if (m.type === "error") throw m.error;
    }
    research = { messages, taskId: (messages[0]!.task as Task).taskId };
    // Cancelled while it works.
    const made = await alice.client.request(
      { method: "tools/call", params: { name: RESEARCH, arguments: { topic: "rust" }, task: {} } },
      CreateTaskResultSchema,
    );
    const task = await alice.client.experimental.tasks.cancelTask(made.task.taskId);
    const again = await alice.client.experimental.tasks.cancelTask(made.task.taskId).then(
      () => "no error",
      (error: unknown) => error,
    );
    cancelled = { task: task as Task, taskId: made.task.taskId, again };
    // A tool whose server has no task support: the gateway runs the task.
    const asTask = await alice.client.request(
      {
        method: "tools/call",
        params: { name: "memory__read_graph", arguments: {}, task: { ttl: 60_000 } },
      },
      CreateTaskResultSchema,
    );
    const final = await until("the gateway's task to end", async () => {
      const t = await alice.client.experimental.tasks.getTask(asTask.task.taskId);
      return t.status === "working" ? undefined : (t as Task);
    });
    const result = await alice.client.experimental.tasks.getTaskResult(
      asTask.task.taskId,
      CallToolResultSchema,
    );
    local = { created: asTask.task, final, result };
    // A client without task support calls the tool that requires one: the gateway runs it.
    onBehalf = (await plain.client.callTool(
      { name: RESEARCH, arguments: { topic: "go" } },
      CallToolResultSchema,
      { timeout: 60_000 },
    )) as CallToolResult;
  }, 240_000);

  afterAll(async () => {
    for (const c of [alice, bob, plain]) await c?.client.close().catch(() => undefined);
    await serve?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("G4 the gateway declares the tasks capability as server-everything does, every other capability too (parity)", async () => {
    const server = everything();
    const direct = new Client({ name: "direct", version: "1.0.0" });
    await direct.connect(
      new StdioClientTransport({
        command: server.command,
        args: server.args ?? [],
        stderr: "pipe",
      }),
    );
    try {
      const upstream = direct.getServerCapabilities()!;
      const through = alice.client.getServerCapabilities()!;
      expect(upstream.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
      expect(through.tasks).toEqual(upstream.tasks);
      for (const key of Object.keys(upstream))
        expect(through[key as keyof typeof through]).toEqual(
          upstream[key as keyof typeof upstream],
        );
    } finally {
      await direct.close();
    }
  });

  it("G4 a tool the server requires a task for is served as optional: callable as a task or not", async () => {
    const { tools } = await alice.client.listTools();
    expect(tools.find((t) => t.name === RESEARCH)?.execution).toEqual({ taskSupport: "optional" });
    expect(tools.find((t) => t.name === "memory__read_graph")?.execution).toEqual({
      taskSupport: "optional",
    });
  });

  it("G4 simulate-research-query runs as a task: created, status updates, its elicitation to its client, the result", () => {
    const types = research.messages.map((m) => m.type);
    expect(types[0]).toBe("taskCreated");
    expect(types.at(-1)).toBe("result");
    expect(textOf(research.messages.at(-1)!.result)).toContain(
      "# Research Report: python (programming)",
    );
    // The server's status notifications reach the task's client under the gateway's id.
    const mine = alice.statuses.filter((s) => s.taskId === research.taskId).map((s) => s.status);
    expect(mine).toContain("input_required");
    expect(mine.at(-1)).toBe("completed");
    // The elicitation names the task by the id the client knows.
    expect(alice.elicited).toEqual([research.taskId]);
    expect(bob.statuses).toEqual([]);
    expect(bob.elicited).toEqual([]);
  });

  it("G4 tasks/cancel cancels it at its server; a second cancel is -32602 (terminal)", () => {
    expect(cancelled.task).toMatchObject({ taskId: cancelled.taskId, status: "cancelled" });
    expect(cancelled.again).toMatchObject({ code: -32602 });
  });

  it("G4 two clients' tasks are isolated: list, get, result and cancel of another's task fail", async () => {
    const theirs = await bob.client.experimental.tasks.listTasks();
    expect(theirs.tasks).toEqual([]);
    const own = await alice.client.experimental.tasks.listTasks();
    expect(own.tasks.map((t) => t.taskId)).toEqual(
      expect.arrayContaining([research.taskId, cancelled.taskId, local.created.taskId]),
    );
    for (const attempt of [
      () => bob.client.experimental.tasks.getTask(research.taskId),
      () => bob.client.experimental.tasks.getTaskResult(research.taskId, CallToolResultSchema),
      () => bob.client.experimental.tasks.cancelTask(cancelled.taskId),
    ])
      await expect(attempt()).rejects.toMatchObject({ code: -32602 });
    // The ids are the gateway's: never the server's own.
    expect(research.taskId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("G4 a task on a tool whose server has no task support runs in the gateway's own task store", () => {
    expect(local.created.status).toBe("working");
    expect(local.final.status).toBe("completed");
    expect(local.result).toMatchObject({
      _meta: { [RELATED_TASK_META_KEY]: { taskId: local.created.taskId } },
    });
    expect(textOf(local.result)).toContain("entities");
  });

  it("G4 a client without task support calls the required-task tool plainly and gets its result", () => {
    expect(onBehalf.isError).toBeFalsy();
    expect(textOf(onBehalf)).toContain("# Research Report: go");
  });

  it("C6 the conversation's tasks replay with their lifecycle, audit --calls and explain show them", async () => {
    expect(await serve.stop()).toBe(130);
    const ids = await conversations(db, dir);
    const replay = await runCli(["replay", ids.get("alice")!, "--db", db], dir);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain(`task ${research.taskId.slice(0, 8)} created`);
    expect(replay.stdout).toMatch(/input required/);
    expect(replay.stdout).toMatch(/task [0-9a-f]{8} completed/);
    expect(replay.stdout).toMatch(/task [0-9a-f]{8} cancelled/);
    expect(replay.stdout).toContain("run by the gateway");
    const audit = await runCli(
      ["audit", "--calls", "--session", ids.get("alice")!, "--db", db, "--json"],
      dir,
    );
    expect(audit.code, audit.stderr).toBe(0);
    const { calls } = JSON.parse(audit.stdout) as {
      calls: {
        publicName: string;
        outcome: string;
        task: { status: string; runner: string; lifecycle: { status: string }[] } | null;
      }[];
    };
    const researched = calls.find(
      (c) => c.task?.status === "completed" && c.publicName === RESEARCH,
    );
    expect(researched?.task?.runner).toBe("server");
    expect(researched?.task?.lifecycle.map((s) => s.status)).toEqual(
      expect.arrayContaining(["working", "input_required", "completed"]),
    );
    expect(calls.find((c) => c.task?.status === "cancelled")?.outcome).toBe("cancelled");
    const { calls: plainCalls } = JSON.parse(
      (
        await runCli(
          ["audit", "--calls", "--session", ids.get("plain")!, "--db", db, "--json"],
          dir,
        )
      ).stdout,
    ) as { calls: { outcome: string; task: { requested: boolean } | null }[] };
    expect(plainCalls).toEqual([
      expect.objectContaining({
        outcome: "ok",
        task: expect.objectContaining({ requested: false }),
      }),
    ]);
    const table = await runCli(
      ["audit", "--calls", "--session", ids.get("alice")!, "--db", db],
      dir,
    );
    expect(table.stdout).toContain("[task working → input required → working → completed]");
    const explain = await runCli(
      ["explain", RESEARCH, "--session", ids.get("alice")!, "--db", db],
      dir,
    );
    expect(explain.code, explain.stderr).toBe(0);
    expect(explain.stdout).toMatch(
      /C6 +2 call\(s\) ran as tasks \(2 by its server, 0 by the gateway\)/,
    );
    expect(explain.stdout).toContain("as a task (working → input required → working → completed)");
  });
});

describe("C6 a gateway that stops or dies with open tasks records what became of them", () => {
  it("C6 a clean stop cancels the open tasks at their server and records them cancelled, with why", async () => {
    const serve = await serveOverHttp([everything()]);
    try {
      const client = await taskClient(serve.url, "stopper");
      await until("the research tool", async () =>
        (await client.client.listTools()).tools.some((t) => t.name === RESEARCH) ? true : undefined,
      );
      const made = await client.client.request(
        { method: "tools/call", params: { name: RESEARCH, arguments: { topic: "zig" }, task: {} } },
        CreateTaskResultSchema,
      );
      expect(made.task.status).toBe("working");
      expect(await serve.stop()).toBe(130);
      const ids = await conversations(serve.db, serve.dir);
      const log = await runCli(["replay", ids.get("stopper")!, "--db", serve.db], serve.dir);
      expect(log.code, log.stderr).toBe(0);
      expect(log.stdout).toContain(`task ${made.task.taskId.slice(0, 8)} cancelled`);
      expect(log.stdout).toContain("the conversation closed");
      expect(log.stdout).toMatch(/research-query cancelled/);
      await client.client.close().catch(() => undefined);
    } finally {
      await serve.remove();
    }
  }, 120_000);

  it("C6 tasks a killed gateway left open are recorded as lost when their conversation is resumed", async () => {
    const first = serveStdioTransport([everything()], ["--deferral", "off"]);
    const client = new Client(
      { name: "resumer", version: "1.0.0" },
      { capabilities: { tasks: {} } },
    );
    await client.connect(first.transport);
    await first.ready();
    const made = await client.experimental.tasks
      .callToolStream({ name: RESEARCH, arguments: { topic: "ada" } }, CallToolResultSchema, {
        task: {},
      })
      .next();
    const taskId = (made.value as { task: Task }).task.taskId;
    const conversation = /conversation (conv-\S+) opened/.exec(first.stderr())![1]!;
    process.kill(first.transport.pid!, "SIGKILL");
    await client.close().catch(() => undefined);
    // The same database, the conversation resumed by a new gateway.
    const again = new StdioClientTransport({
      command: process.execPath,
      args: [
        CLI_MAIN,
        "serve",
        "--config",
        first.config,
        "--db",
        first.db,
        "--conversation",
        conversation,
      ],
      env: cleanServeEnv(first.dir),
      stderr: "pipe",
    });
    const resumed = new Client({ name: "resumer", version: "1.0.0" });
    await resumed.connect(again);
    await resumed.listTools();
    await resumed.close();
    const log = await runCli(["replay", conversation, "--db", first.db], first.dir);
    first.remove();
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain(`task ${taskId.slice(0, 8)} lost`);
    expect(log.stdout).toContain("the gateway that ran it stopped before it ended");
  }, 120_000);
});
