import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
// SDK 1 (1.32.2) as a real 2025 client of the gateway (V1's matrix): v2 has no SDK 1 client.
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { CLI, cleanEnv } from "./spawnCli.js";

/** V1's clients: SDK 2 pinned to 2026-07-28, SDK 2 `auto`, SDK 2 legacy (default), SDK 1. */
export type EraClientKind = "modern" | "auto" | "legacy" | "v1";
export const ERA_CLIENTS: readonly EraClientKind[] = ["modern", "auto", "legacy", "v1"];

/** Where a client reaches `serve`: the HTTP endpoint URL, or a serve started over stdio. */
export type ServeTarget = { url: string } | { dir: string; config: object; args?: string[] };

/** One client of `toolledger serve`, whatever its SDK and era. */
export interface EraClient {
  kind: EraClientKind;
  /** The era the client ended up speaking. */
  era: "modern" | "legacy";
  /** `server/discover`'s (or initialize's) server identity and capabilities. */
  serverInfo: { name: string; version: string } | undefined;
  capabilities: Record<string, unknown> | undefined;
  /** The served tool names, sorted. */
  names: () => Promise<string[]>;
  /** The served tool names in the order served (V3). */
  order: () => Promise<string[]>;
  /** tools/list's whole result (cache hints, resultType as the client passes them on). */
  listTools: () => Promise<Record<string, unknown>>;
  call: (
    name: string,
    args?: Record<string, unknown>,
  ) => Promise<{ text: string; isError: boolean }>;
  /** tools/list_changed seen so far (a modern client: on its `subscriptions/listen` stream). */
  changes: () => number;
  /** serve's stderr (stdio only). */
  stderr: () => string;
  client: Client | V1Client;
  close: () => Promise<void>;
}

const text = (r: unknown): string =>
  (((r as { content?: unknown }).content ?? []) as { text?: string }[])
    .map((c) => c.text ?? "")
    .join("");

function stdioParams(target: { dir: string; config: object; args?: string[] }) {
  const file = join(target.dir, "mcp.json");
  writeFileSync(file, JSON.stringify(target.config));
  return {
    command: process.execPath,
    args: [
      CLI,
      "serve",
      "--config",
      file,
      "--db",
      join(target.dir, "s.db"),
      ...(target.args ?? []),
    ],
    env: cleanEnv(target.dir),
    cwd: target.dir,
    stderr: "pipe" as const,
  };
}

/** Connects a client of `kind` to `serve` (over stdio: starts it). */
export async function connectEraClient(
  kind: EraClientKind,
  target: ServeTarget,
  name = `${kind}-client`,
): Promise<EraClient> {
  let stderr = "";
  const onStderr = (t: { stderr: { on: (e: "data", f: (c: Buffer) => void) => unknown } | null }) =>
    t.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
  let changes = 0;
  if (kind === "v1") {
    const client = new V1Client({ name, version: "1.0.0" });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    const transport =
      "url" in target ? new V1Http(new URL(target.url)) : new V1Stdio(stdioParams(target));
    if (!("url" in target)) onStderr(transport as V1Stdio);
    await client.connect(transport);
    return handle(
      kind,
      "legacy",
      client,
      () => changes,
      () => stderr,
    );
  }
  const negotiation =
    kind === "modern"
      ? { versionNegotiation: { mode: { pin: "2026-07-28" as const } } }
      : kind === "auto"
        ? { versionNegotiation: { mode: "auto" as const } }
        : {};
  const client = new Client({ name, version: "1.0.0" }, negotiation);
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    changes++;
  });
  const transport =
    "url" in target
      ? new StreamableHTTPClientTransport(new URL(target.url))
      : new StdioClientTransport(stdioParams(target));
  if (!("url" in target)) onStderr(transport as StdioClientTransport);
  await client.connect(transport);
  const era = client.getProtocolEra() === "modern" ? "modern" : "legacy";
  // A 2026-07-28 client hears of changes only on a listen stream it opened (V1).
  if (era === "modern") await client.listen({ toolsListChanged: true });
  return handle(
    kind,
    era,
    client,
    () => changes,
    () => stderr,
  );
}

/** The EraClient of a connected client of either SDK (both have the calls used here). */
function handle(
  kind: EraClientKind,
  era: "modern" | "legacy",
  client: Client | V1Client,
  changes: () => number,
  stderr: () => string,
): EraClient {
  // The two SDKs' clients answer these calls alike; one of them types the calls for both.
  const c = client as Client;
  const listed = async () => (await c.listTools()).tools.map((t) => t.name);
  return {
    kind,
    era,
    serverInfo: c.getServerVersion(),
    capabilities: c.getServerCapabilities() as Record<string, unknown> | undefined,
    names: async () => (await listed()).sort(),
    order: listed,
    listTools: async () => (await c.listTools()) as Record<string, unknown>,
    call: async (tool, args = {}) => {
      const r = await c.callTool({ name: tool, arguments: args });
      return { text: text(r), isError: r.isError === true };
    },
    changes,
    stderr,
    client,
    close: () => c.close(),
  };
}
