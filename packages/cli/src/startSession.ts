import { openSession, type ToolledgerSession } from "@toolledger/adapters-mcp";
import type { DeferralConfig, EventStore } from "@toolledger/core";
import type { Output } from "./output.js";
import type { LoadedConfig } from "./serverConfig.js";
import { toExtensionConfig } from "./toExtensionConfig.js";

export interface StartedSession {
  session: ToolledgerSession;
  /** Servers that did not start, each with the adapter's message (command and stderr tail). */
  failures: { name: string; message: string }[];
}

/**
 * Opens a session (on `store`, or in memory), records the deferral config, and connects
 * every enabled server of the config file. Servers that fail to start are reported on
 * stderr and returned; the others keep working (as in goose).
 */
export async function startSession(
  config: LoadedConfig,
  deferral: DeferralConfig,
  o: Output,
  options: {
    store?: EventStore;
    streamId?: string;
    now: () => Date;
    env: Readonly<Record<string, string | undefined>>;
  },
): Promise<StartedSession> {
  for (const warning of config.warnings) o.note(`${o.err.yellow("warning:")} ${warning}`);
  const session = await openSession({
    ...(options.store ? { store: options.store } : {}),
    ...(options.streamId ? { streamId: options.streamId } : {}),
    now: options.now,
  });
  session.errors$.subscribe((error) =>
    o.note(`${o.err.yellow("warning:")} ${error.code}: ${error.message}`),
  );
  await session.configureDeferral(deferral.mode, [...deferral.alwaysLoad]);
  const configs = [];
  const failures: StartedSession["failures"] = [];
  for (const server of config.servers) {
    if (!server.enabled) continue;
    const ext = toExtensionConfig(server, options.env);
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
  for (const result of await session.addExtensions(configs)) {
    if (result.error) {
      failures.push({ name: result.name, message: result.error.message });
      o.note(`${o.err.red("error:")} ${result.error.message}`);
    }
  }
  return { session, failures };
}
