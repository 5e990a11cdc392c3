import {
  DEFAULT_RETRY,
  type ExtensionConfig,
  type ExtensionStatus,
  type HostOptions,
  type OAuthRuntime,
  openHost,
  openStandaloneConversation,
  type StandaloneConversation,
  type ToolledgerHost,
} from "@toolledger/adapters-mcp";
import { type DeferralConfig, type EventStore, nameToKey, type PinPolicy } from "@toolledger/core";
import type { LoadedConfig } from "../config/serverConfig.js";
import type { Output } from "../output/output.js";
import { toExtensionConfig } from "./toExtensionConfig.js";

export interface StartedHost {
  host: ToolledgerHost;
  /** Servers that did not start, each with the adapter's message (command and stderr tail). */
  failures: { name: string; message: string }[];
}

export interface StartedSession {
  session: StandaloneConversation;
  failures: { name: string; message: string }[];
}

/** The environment servers may inherit (the host's convention, see ServerConfig.inheritEnv). */
type Env = Readonly<Record<string, string | undefined>>;

interface HostStartOptions {
  store?: EventStore;
  now: () => Date;
  version?: string;
  env: Env;
  /** R14: characters the client puts in front of every tool name (`serve --name-prefix`). */
  outerPrefixBudget?: number;
  /** Largest stdio message read from a server (serve --max-message-mb). */
  maxMessageBytes?: number;
  /** V3: the largest definition served (serve --max-definition-kb; else the config file's). */
  maxDefinitionBytes?: number;
  /** P5: the pinning policy of servers the config sets none for (serve: quarantine). */
  pinning?: PinPolicy;
  /** Told the host before any server starts (to follow its events from the first). */
  onHost?: (host: ToolledgerHost) => void;
  /** A1–A4: how remote servers are authorized (serve: with the browser step). */
  oauth?: OAuthRuntime;
}

/**
 * Opens a host (on `store`, or in memory) and connects every enabled server of the config
 * file. Servers that fail to start are reported on stderr and returned; the others keep
 * working (as in goose).
 */
export async function startHost(
  config: LoadedConfig,
  o: Output,
  options: HostStartOptions,
): Promise<StartedHost> {
  const host = await openReportingHost(config, o, options, {});
  return { host, failures: await connectServers(host, config, o, options.env) };
}

/** A server may take this long to start when nothing waits for it (a first `npx -y` download). */
export const BACKGROUND_START_TIMEOUT_MS = 120_000;

/**
 * Opens a host and starts every enabled server of the config file in the background, with
 * bounded restarts (DEFAULT_RETRY): the gateway serves at once with what is ready, and each
 * server's progress (ready, failed and retrying, given up) is said on stderr as it happens.
 */
export async function startHostInBackground(
  config: LoadedConfig,
  o: Output,
  options: HostStartOptions,
): Promise<StartedHost> {
  const host = await openReportingHost(config, o, options, {
    connectTimeoutMs: BACKGROUND_START_TIMEOUT_MS,
    retry: DEFAULT_RETRY,
  });
  host.status$.subscribe((status) => reportStatus(host, status, o));
  options.onHost?.(host);
  const { configs, failures } = serversToStart(config, o, options.env);
  await host.startExtensions(configs);
  return { host, failures };
}

/** V3: what to do about a definition over the cap (serve's flag, or the config file's key). */
const OVERSIZED_HINT =
  " (raise the limit with serve's --max-definition-kb or the config file's toolledger.max_definition_kb if it must be served)";

function reportStatus(host: ToolledgerHost, s: ExtensionStatus, o: Output): void {
  const attempts = DEFAULT_RETRY.attempts;
  if (s.phase === "ready") {
    const tools = host.listTools({ extension: s.key, includeHidden: true }).length;
    o.note(
      `toolledger: ${s.name} is ready (${tools} tool(s))${s.attempts > 1 ? ` after ${s.attempts} attempts` : ""}`,
    );
    // R9/V3: a definition the server listed and the gateway cannot serve is said, with its reason.
    for (const d of host.diagnostics())
      if ((d.kind === "rejected_tool" || d.kind === "rejected_definition") && d.extension === s.key)
        o.note(
          `${o.err.yellow("warning:")} ${d.message}${d.reason === "oversized" ? OVERSIZED_HINT : ""}`,
        );
  } else if (s.phase === "retrying") {
    const wait = s.nextAttemptAt ? Math.max(0, Date.parse(s.nextAttemptAt) - Date.now()) : 0;
    o.note(
      `${o.err.red("error:")} ${s.reason ?? `${s.name} failed`} (attempt ${s.attempts} of ${attempts}; trying again in ${Math.round(wait / 100) / 10} s)`,
    );
  } else if (s.phase === "authorizing") {
    o.note(`${o.err.yellow("waiting:")} ${s.reason ?? `${s.name} needs OAuth authorization`}`);
  } else if (s.phase === "failed") {
    o.note(
      `${o.err.red("error:")} ${s.reason ?? `${s.name} failed`} (${s.attempts} attempt(s); giving up: fix it and restart toolledger)`,
    );
  }
}

/** A host and one conversation in memory: the registry of a config file as a model would see it. */
export async function startSession(
  config: LoadedConfig,
  deferral: DeferralConfig,
  o: Output,
  options: { now: () => Date; env: Env; oauth?: OAuthRuntime },
): Promise<StartedSession> {
  reportWarnings(config, o);
  const session = await openStandaloneConversation({
    now: options.now,
    // V3: the config file's cap on one definition applies to what is listed here too.
    ...(config.maxDefinitionBytes ? { maxDefinitionBytes: config.maxDefinitionBytes } : {}),
    ...(options.oauth ? { oauth: options.oauth } : {}),
    conversation: {
      deferral: {
        mode: deferral.mode,
        alwaysLoad: [...deferral.alwaysLoad],
        ...(deferral.budget === undefined ? {} : { budget: deferral.budget }),
      },
    },
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
  const { configs, failures } = serversToStart(config, o, env);
  // As `serve` answers its first tools/list: every server gets its startup grace (issue 20).
  await host.startExtensions(configs);
  await host.untilListed();
  const byKey = new Map(host.extensions().map((s) => [s.key, s]));
  for (const ext of configs) {
    const status = byKey.get(nameToKey(ext.name));
    if (!status || status.phase === "ready") continue;
    if (status.phase === "failed" && status.status === "connected") continue;
    const message =
      status.phase === "failed" || status.phase === "retrying"
        ? (status.reason ?? `${ext.name} did not start`)
        : `${ext.name} was still ${status.phase === "listing" ? "listing its tools" : "starting"} after its startup grace of ${seconds(ext.startupGraceMs ?? host.options.startupGraceMs)}; \`serve\` leaves it out of its first tools/list too (raise \`startup_grace\` for it, or start its command by hand to see why)`;
    failures.push({ name: ext.name, message });
    o.note(`${o.err.red("error:")} ${message}`);
  }
  // A server that started but whose tools could not be listed serves nothing: say why.
  for (const d of host.diagnostics()) {
    const status = byKey.get(d.kind === "fetch_failed" ? d.extension : "");
    if (d.kind === "fetch_failed" && status?.phase === "failed" && status.status === "connected")
      o.note(`${o.err.yellow("warning:")} ${d.extension}: ${d.error}`);
  }
  return failures;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** The adapter configs of the enabled servers; in-host kinds are skipped and config problems reported. */
function serversToStart(
  config: LoadedConfig,
  o: Output,
  env: Env,
): { configs: ExtensionConfig[]; failures: { name: string; message: string }[] } {
  const configs: ExtensionConfig[] = [];
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
  return { configs, failures };
}

/** A host whose background failures (and the config's warnings) are said on stderr. */
async function openReportingHost(
  config: LoadedConfig,
  o: Output,
  options: HostStartOptions,
  extra: Pick<HostOptions, "connectTimeoutMs" | "retry">,
): Promise<ToolledgerHost> {
  reportWarnings(config, o);
  const host = await openHost({
    ...(options.store ? { store: options.store } : {}),
    ...(options.outerPrefixBudget ? { outerPrefixBudget: options.outerPrefixBudget } : {}),
    ...(options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : {}),
    ...((options.maxDefinitionBytes ?? config.maxDefinitionBytes)
      ? { maxDefinitionBytes: options.maxDefinitionBytes ?? config.maxDefinitionBytes }
      : {}),
    ...(options.pinning ? { pinning: options.pinning } : {}),
    ...(options.oauth ? { oauth: options.oauth } : {}),
    now: options.now,
    ...(options.version ? { toolledgerVersion: options.version } : {}),
    // L3: conversations of gateways that are gone are ended here, and said so.
    lease: {
      onEnded: (conversation, gone) =>
        o.note(`toolledger: conversation ${conversation} ended as lost: ${gone}`),
    },
    ...extra,
  });
  host.errors$.subscribe((error) =>
    o.note(`${o.err.yellow("warning:")} ${error.code}: ${error.message}`),
  );
  return host;
}
