import {
  openHost,
  openSession,
  type ToolledgerHost,
  type ToolledgerSession,
} from "@toolledger/adapters-mcp";
import type { DeferralConfig, EventStore } from "@toolledger/core";
import type { Output } from "./output.js";
import type { LoadedConfig } from "./serverConfig.js";
import { toExtensionConfig } from "./toExtensionConfig.js";

export interface StartedHost {
  host: ToolledgerHost;
  /** Servers that did not start, each with the adapter's message (command and stderr tail). */
  failures: { name: string; message: string }[];
}

export interface StartedSession {
  session: ToolledgerSession;
  failures: { name: string; message: string }[];
}

/**
 * Opens a host (on `store`, or in memory) and connects every enabled server of the config
 * file. Servers that fail to start are reported on stderr and returned; the others keep
 * working (as in goose).
 */
export async function startHost(
  config: LoadedConfig,
  o: Output,
  options: { store?: EventStore; now: () => Date; version?: string },
): Promise<StartedHost> {
  const host = await openHost({
    ...(options.store ? { store: options.store } : {}),
    ...callTimeout(config),
    now: options.now,
    ...(options.version ? { toolledgerVersion: options.version } : {}),
  });
  host.errors$.subscribe((error) =>
    o.note(`${o.err.yellow("warning:")} ${error.code}: ${error.message}`),
  );
  return { host, failures: await connectServers(host, config, o) };
}

/** A host and one conversation in memory: the registry of a config file as a model would see it. */
export async function startSession(
  config: LoadedConfig,
  deferral: DeferralConfig,
  o: Output,
  options: { now: () => Date },
): Promise<StartedSession> {
  const session = await openSession({
    ...callTimeout(config),
    now: options.now,
    conversation: { deferral: { mode: deferral.mode, alwaysLoad: [...deferral.alwaysLoad] } },
  });
  session.errors$.subscribe((error) =>
    o.note(`${o.err.yellow("warning:")} ${error.code}: ${error.message}`),
  );
  return { session, failures: await connectServers(session.host, config, o) };
}

function callTimeout(config: LoadedConfig): { callTimeoutMs?: number } {
  const timeouts = config.servers.flatMap((s) =>
    s.timeoutSeconds === undefined ? [] : [s.timeoutSeconds * 1000],
  );
  return timeouts.length > 0 ? { callTimeoutMs: Math.max(...timeouts) } : {};
}

async function connectServers(
  host: ToolledgerHost,
  config: LoadedConfig,
  o: Output,
): Promise<{ name: string; message: string }[]> {
  const configs = [];
  for (const server of config.servers) {
    if (!server.enabled) continue;
    const ext = toExtensionConfig(server);
    if (ext === null) {
      o.note(
        `${o.err.dim("skipped:")} ${server.name} (${config.file}:${server.source.line}) is a goose ${server.kind} extension; it lives inside goose and has no server to start`,
      );
      continue;
    }
    configs.push(ext);
  }
  const failures: { name: string; message: string }[] = [];
  for (const result of await host.addExtensions(configs)) {
    if (result.error) {
      failures.push({ name: result.name, message: result.error.message });
      o.note(`${o.err.red("error:")} ${result.error.message}`);
    }
  }
  return failures;
}
