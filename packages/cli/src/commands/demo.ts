import { fileURLToPath } from "node:url";
import {
  type Conversation,
  ExtensionConnection,
  exampleServers,
  fetchTools,
  type HttpGateway,
  openHost,
  serveGatewayHttp,
  type ToolCallResult,
  type ToolledgerHost,
} from "@toolledger/adapters-mcp";
import { ENABLE_TOOLS_NAME, listTools } from "@toolledger/core";
import { cliInvocation } from "../output/cliInvocation.js";
import { contextTokens, formatContextTokens, TOKENIZER } from "../output/contextTokens.js";
import { formatTable } from "../output/formatTable.js";
import type { Output } from "../output/output.js";
import { shellQuote } from "../output/shellQuote.js";
import { stillEnabledLabel } from "../output/stillEnabledLabel.js";
import { CliError } from "../program/cliError.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { formatStep, stepWidth } from "../replay/formatStep.js";
import { replaySteps } from "../replay/replaySteps.js";
import { appendToConversation } from "../session/appendToConversation.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { finalState } from "../session/foldEntries.js";
import { openStore } from "../session/openStore.js";
import { readSession } from "../session/readSession.js";
import { demoSpec } from "./demoSpec.js";

const TIMEOUT_MS = 15_000;

interface ScriptStep {
  step: string;
  outcome: "ok" | "refused" | "failed";
  detail: string;
}

export async function demoCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(demoSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const json = booleanOption(parsed, "json");
  const say = (text: string) => {
    if (!json) o.data(text);
  };
  let servers: ReturnType<typeof exampleServers>;
  try {
    servers = exampleServers();
  } catch (error) {
    throw new CliError(
      "serverFailure",
      `the example MCP servers are not available: ${(error as Error).message}`,
      {
        hint: "run `pnpm build` at the workspace root (or `pnpm demo`, which builds first)",
      },
    );
  }
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = await openStore(location, "write");
  let sessionId = "";
  let host: ToolledgerHost | undefined;
  let gateway: HttpGateway | undefined;
  let client: ExtensionConnection | undefined;
  const script: ScriptStep[] = [];
  const started = Date.now();
  try {
    say(`${o.out.bold("toolledger demo")}: a scripted session through the gateway\n`);
    host = await openHost({
      store,
      now: deps.now,
      connectTimeoutMs: TIMEOUT_MS,
      callTimeoutMs: TIMEOUT_MS,
      toolledgerVersion: deps.version,
    });
    const h = host;
    h.errors$.subscribe((error) =>
      o.note(`${o.err.yellow("warning:")} ${error.code}: ${error.message}`),
    );
    const added = await h.addExtensions(servers);
    const failed = added.filter((r) => r.error);
    if (failed.length > 0) {
      throw new CliError("serverFailure", failed.map((r) => r.error!.message).join("\n"), {
        hint: "the example servers ship with @toolledger/adapters-mcp; rebuild with `pnpm build`",
      });
    }
    const counts = servers.map(
      (c) => `${c.name} (${listTools(h.state, { extension: c.name }).length} tools)`,
    );
    say(
      `  ${o.out.green("✓")} started ${servers.length} example MCP servers as processes: ${counts.join(", ")}`,
    );
    let opened: Conversation | undefined;
    gateway = await serveGatewayHttp(h, {
      name: "toolledger",
      version: deps.version,
      host: "127.0.0.1",
      port: 0,
      conversation: { deferral: { mode: "lookup" } },
      onConversation: (change) => {
        if (change.type === "opened") opened = change.conversation;
      },
    });
    say(
      `  ${o.out.green("✓")} gateway at ${gateway.url.href}, deferral lookup; the demo talks to it as an MCP client\n`,
    );
    client = await ExtensionConnection.connect(
      { type: "streamable_http", name: "demo-client", url: gateway.url.href },
      {
        clientInfo: { name: "toolledger-demo", version: deps.version },
        connectTimeoutMs: TIMEOUT_MS,
      },
    );
    const c = client;
    // The gateway opened this client's conversation when it initialized (C2).
    await fetchTools(c, { requestTimeoutMs: TIMEOUT_MS, maxPages: 1 });
    if (!opened)
      throw new CliError("internal", "the gateway opened no conversation for the demo client");
    const s = opened;
    sessionId = s.id;
    say(`  ${o.out.green("✓")} conversation ${s.id} opened for the demo client (C2)\n`);
    const record = (step: string, outcome: ScriptStep["outcome"], detail: string) => {
      script.push({ step, outcome, detail });
      const mark =
        outcome === "ok"
          ? o.out.green("✓")
          : outcome === "refused"
            ? o.out.yellow("⊘")
            : o.out.red("✗");
      say(`  ${String(script.length).padStart(2)}. ${mark} ${step}\n      ${o.out.dim(detail)}`);
    };
    const list = async (step: string) => {
      const { tools } = await fetchTools(c, { requestTimeoutMs: TIMEOUT_MS, maxPages: 10 });
      const names = tools.map((t) => t.name);
      const deferred = s.modelView().deferred;
      record(
        step,
        "ok",
        `schemas: ${names.join(", ")}; deferred by name: ${deferred.length > 0 ? deferred.join(", ") : "none"}`,
      );
    };
    const call = async (
      name: string,
      args: Record<string, unknown>,
      label = `tools/call ${name}`,
    ) => {
      const result = await c.callTool(name, args, { timeoutMs: TIMEOUT_MS });
      record(
        label,
        result.isError ? (name === ENABLE_TOOLS_NAME ? "failed" : "refused") : "ok",
        textOf(result),
      );
      return result;
    };

    await list("tools/list: the model sees enable_tools and the deferred names only (D4)");
    await call(
      "notes__add_note",
      { title: "groceries", body: "eggs, flour" },
      "tools/call notes__add_note before enabling it (D9)",
    );
    await call(
      ENABLE_TOOLS_NAME,
      { names: ["notes__add_note", "notes__search_notes"] },
      'enable_tools ["notes__add_note", "notes__search_notes"] (D5)',
    );
    await list("tools/list after the enable: their schemas are served now");
    await call(
      "notes__add_note",
      { title: "groceries", body: "eggs, flour, butter" },
      "tools/call notes__add_note, through to the notes server",
    );
    await call(
      ENABLE_TOOLS_NAME,
      { names: ["calculator__calculate", "calculator__evaluate"] },
      'enable_tools ["calculator__calculate", "calculator__evaluate"]: one name is wrong, so nothing is enabled',
    );
    // Compaction and /clear come from outside, as `toolledger compact|clear <conversation>` (C3).
    await appendToConversation(store, s.id, { type: "Compact" }, deps.now);
    await s.catchUp();
    record(
      `compaction, appended as \`toolledger compact ${s.id}\` would (D7, C3)`,
      "ok",
      `the Compacted event carries the enabled set: ${s.state.enabled.join(", ") || "none"}`,
    );
    await call(
      "notes__search_notes",
      { text: "eggs" },
      "tools/call notes__search_notes after compaction: still enabled",
    );
    await appendToConversation(store, s.id, { type: "Clear" }, deps.now);
    await s.catchUp();
    record(
      `/clear, appended as \`toolledger clear ${s.id}\` would (D8, C3)`,
      "ok",
      `enabled set emptied; the registry is untouched (${listTools(s.state).length} tools)`,
    );
    await call(
      "notes__search_notes",
      { text: "eggs" },
      "tools/call notes__search_notes after /clear: deferred again",
    );
    await call(
      ENABLE_TOOLS_NAME,
      { names: ["calculator__calculate"] },
      'enable_tools ["calculator__calculate"]',
    );
    await call(
      "calculator__calculate",
      { expression: "(2 + 3) * 4.5" },
      "tools/call calculator__calculate, through to the calculator server",
    );
    await h.settled();
  } finally {
    await client?.close();
    await gateway?.close("demo finished");
    await host?.close();
  }

  try {
    const entries = await readSession(store, sessionId);
    // D4: the figure of the recorded session's final state, the one `view` charts at its end.
    const tokens = contextTokens(finalState(entries));
    const audit = await store.auditEnables({ sessionId });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const db = shellQuote(location.path);
    const main = fileURLToPath(new URL("../main.js", import.meta.url));
    // Printed commands run as printed: `toolledger` only when that is this CLI on the PATH.
    const tl = cliInvocation(deps.env, main);
    const next = [
      `${tl} replay ${sessionId} --db ${db}`,
      `${tl} replay ${sessionId} --to ${Math.min(entries.at(-1)?.position ?? 0, 12)} --db ${db}`,
      `${tl} audit --session ${sessionId} --db ${db}`,
      `${tl} explain notes__add_note --session ${sessionId} --db ${db}`,
      `${tl} explain calculator__calculate --session ${sessionId} --db ${db}`,
      `${tl} view ${sessionId} --db ${db} --open`,
      `${tl} export ${sessionId} --db ${db} > ${sessionId}.jsonl`,
    ];
    if (json) {
      o.json({
        session: sessionId,
        db: location.path,
        script,
        replay: [...replaySteps(entries)].map((r) => r.step),
        audit,
        tokens: { tokenizer: TOKENIZER, ...tokens },
        next,
      });
      return EXIT.ok;
    }
    say(
      `\n${o.out.bold("Replay")} of session ${sessionId} (${entries.length} events, stored in ${location.path})`,
    );
    const width = stepWidth(entries);
    for (const { step } of replaySteps(entries)) say(formatStep(step, width, o));
    say(`\n${o.out.bold("Audit")} of enable_tools requests`);
    say(formatAuditRows(audit.requests, o));
    say(`\n${o.out.bold("What deferral saved")} at the end of the session (D4)`);
    say(`  ${formatContextTokens(tokens)}`);
    say(`\nDone in ${seconds}s. ${o.out.bold("Next, try:")}`);
    for (const line of next) say(`  ${line}`);
    if (tl !== "toolledger")
      say(o.out.dim(`\n(to type \`toolledger\` instead: alias toolledger=${shellQuote(tl)})`));
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

function textOf(result: ToolCallResult): string {
  const parts = (result.content ?? []).flatMap((c) =>
    typeof c === "object" && c !== null && (c as { type?: unknown }).type === "text"
      ? [String((c as { text?: unknown }).text)]
      : [],
  );
  const text = parts.join(" ").replace(/\s+/g, " ").trim();
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

function formatAuditRows(
  requests: readonly {
    callId: string;
    names: string[];
    outcome: string;
    requested: { position: number };
    responded: { position: number } | null;
    stillEnabled: string[];
    ended: { position: number; by: string } | null;
  }[],
  o: Output,
): string {
  const rows = requests.map((r) => [
    r.callId.slice(0, 8),
    r.names.join(", "),
    r.outcome === "enabled"
      ? o.out.green(r.outcome)
      : r.outcome === "failed"
        ? o.out.red(r.outcome)
        : o.out.yellow(r.outcome),
    `${r.requested.position}${r.responded ? `→${r.responded.position}` : ""}`,
    stillEnabledLabel(r),
  ]);
  return formatTable(rows, {
    header: ["CALL", "NAMES", "OUTCOME", "EVENTS", "STILL ENABLED"],
    styleHeader: o.out.bold,
  });
}
