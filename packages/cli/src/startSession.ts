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

/** The environment servers may inherit (the host's convention, see ServerConfig.inheritEnv). */
type Env = Readonly<Record<string, string | undefined>>;

/**
 * Opens a host (on `store`, or in memory) and connects every enabled server of the config
 * file. Servers that fail to start are reported on stderr and returned; the others keep
 * working (as in goose).
 */
export async function startHost(
  config: LoadedConfig,
  o: Output,
  options: { store?: EventStore; now: () => Date; version?: string; env: Env },
): Promise<StartedHost> {
  reportWarnings(config, o);
  const host = await openHost({
    ...(options.store ? { store: options.store } : {}),
    now: options.now,
    ...(options.version ? { toolledgerVersion: options.version } : {}),
  });
  host.errors$.subscribe((error) =>
    o.note(`${o.err.yellow("warning:")} ${error.code}: ${error.message}`),
  );
  return { host, failures: await connectServers(host, config, o, options.env) };
}

/** A host and one conversation in memory: the registry of a config file as a model would see it. */
export async function startSession(
  config: LoadedConfig,
  deferral: DeferralConfig,
  o: Output,
  options: { now: () => Date; env: Env },
): Promise<StartedSession> {
  reportWarnings(config, o);
  const session = await openSession({
    now: options.now,
    conversation: { deferral: { mode: deferral.mode, alwaysLoad: [...deferral.alwaysLoad] } },
  });
  session.errors$.subscribe((error) =>
    o.note(`${o.err.yellow("warning:")} ${error.code}: ${error.message}`),
  );
  return { session, failures: await connectServers(session.host, config, o, options.env) };
}

/** Options that have no effect (unknown, misspelt) are said once, before anything starts. */
function reportWarnings(config: LoadedConfig, o: Output): void {
  for (const warning of config.warnings) o.note(`${o.err.yellow("warning:")} ${warning}`);
}

async function connectServers(
  host: ToolledgerHost,
  config: LoadedConfig,
  o: Output,
  env: Env,
): Promise<{ name: string; message: string }[]> {
  const configs = [];
  const failures: { name: string; message: string }[] = [];
  for (const server of config.servers) {
    if (!server.enabled) continue;
    const ext = toExtensionConfig(server, env);
    if (ext === null) {
      o.note(
        `${o.err.dim("skipped:")} ${server.name} (${config.file}:${server.source.line}) is a goose ${server.kind} extension; it lives inside goose and has no server to start`,
      );
      continue;
    }
    if (server.problem !== undefined) {
      failures.push({ name: server.name, message: server.problem });
      o.note(`${o.err.red("error:")} ${server.problem}`);
      continue;
    }
    configs.push(ext);
  }
  for (const result of await host.addExtensions(configs)) {
    if (result.error) {
      failures.push({ name: result.name, message: result.error.message });
      o.note(`${o.err.red("error:")} ${result.error.message}`);
    }
  }
  return failures;
}
