#!/usr/bin/env node
// toolledger-gateway: serves the aggregate of the extensions in a JSON config file to any
// MCP client, over stdio (default) or streamable HTTP (`--http [--port N]`).
//   {"extensions": [ExtensionConfig, …], "deferral": {"mode": "lookup", "alwaysLoad": []},
//    "outerPrefixBudget": 17}   (R14: room for the client's own tool-name prefix; optional)
// Without "deferral", GOOSE_TOOL_DEFERRAL / GOOSE_TOOL_DEFERRAL_ALWAYS_LOAD apply (D1).
// The event log is kept in memory; hosts that persist it use the library API with a store.
import { readFileSync } from "node:fs";
import { parseDeferralConfig } from "@toolledger/core";
import type { ExtensionConfig } from "./extensionConfig.js";
import { type Gateway, serveGatewayHttp, serveGatewayStdio } from "./gateway.js";
import { openSession } from "./session.js";

interface GatewayConfig {
  extensions: ExtensionConfig[];
  deferral?: { mode: "off" | "lookup" | "search" | "auto"; alwaysLoad?: string[] };
  callTimeoutMs?: number;
  requestTimeoutMs?: number;
  outerPrefixBudget?: number;
}

const log = (line: string) => process.stderr.write(`toolledger-gateway: ${line}\n`);

function fail(message: string): never {
  log(message);
  process.exit(1);
}

const argv = process.argv.slice(2);
const configPath = argv.find((a, i) => !a.startsWith("--") && argv[i - 1] !== "--port");
if (configPath === undefined) fail("usage: toolledger-gateway <config.json> [--http [--port N]]");
let config: GatewayConfig;
try {
  config = JSON.parse(readFileSync(configPath, "utf8")) as GatewayConfig;
} catch (error) {
  fail(`cannot read config ${configPath}: ${(error as Error).message}`);
}
if (!Array.isArray(config.extensions))
  fail(`${configPath}: "extensions" must be an array of extension configs`);

let deferral = config.deferral;
if (deferral === undefined) {
  const parsed = parseDeferralConfig(process.env);
  if (!parsed.ok) fail(parsed.error.message);
  deferral = { mode: parsed.config.mode, alwaysLoad: [...parsed.config.alwaysLoad] };
}

const session = await openSession({
  ...(config.callTimeoutMs ? { callTimeoutMs: config.callTimeoutMs } : {}),
  ...(config.requestTimeoutMs ? { requestTimeoutMs: config.requestTimeoutMs } : {}),
  ...(config.outerPrefixBudget ? { outerPrefixBudget: config.outerPrefixBudget } : {}),
});
session.errors$.subscribe((error) => log(`${error.code}: ${error.message}`));
await session.configureDeferral(deferral.mode, deferral.alwaysLoad ?? []);
for (const result of await session.addExtensions(config.extensions)) {
  if (result.error) log(result.error.message);
}
// A fetch that raced a list change is a normal event, not a warning (the CLI's rule too).
for (const d of session.diagnostics()) if (d.kind !== "stale_fetch") log(d.message);

let gateway: Gateway;
if (argv.includes("--http")) {
  const portIndex = argv.indexOf("--port");
  const http = await serveGatewayHttp(session, {
    port: portIndex === -1 ? 0 : Number(argv[portIndex + 1]),
  });
  process.stdout.write(`listening ${http.url.href}\n`);
  gateway = http;
} else {
  gateway = await serveGatewayStdio(session);
  process.stdin.on("end", () => void shutdown());
}

async function shutdown(): Promise<void> {
  await gateway.close();
  await session.close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
