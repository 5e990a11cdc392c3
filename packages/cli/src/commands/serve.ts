import type { Readable, Writable } from "node:stream";
import {
  type Conversation,
  type Gateway,
  isLoopbackHost,
  MIN_TOKEN_LENGTH,
  serveGatewayHttp,
  serveGatewayStdio,
  type ToolledgerHost,
} from "@toolledger/adapters-mcp";
import { MAX_WIRE_NAME_LENGTH, MIN_WIRE_NAME_LENGTH } from "@toolledger/core";
import { MAX_DEFINITION_KB } from "../config/configSchemas.js";
import type { LoadedConfig } from "../config/serverConfig.js";
import { shellQuote } from "../output/shellQuote.js";
import { reportPins } from "../pins/reportPins.js";
import { resolvePinning } from "../pins/resolvePinning.js";
import { CliError, usageError } from "../program/cliError.js";
import {
  booleanOption,
  integerOption,
  type ParsedArgs,
  stringOption,
} from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { loadServerSetup } from "../serve/loadServerSetup.js";
import { oauthRuntimeFor } from "../serve/oauthRuntimeFor.js";
import { type StartedHost, startHostInBackground } from "../serve/startSession.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { openStore } from "../session/openStore.js";
import { serveSpec, TOKEN_ENV } from "./serveSpec.js";

/** V1: each server's era: its own `protocol_era`, else `--protocol-era`, else the file's, else auto. */
function resolveProtocolEra(config: LoadedConfig, flag: string | undefined): LoadedConfig {
  if (flag === undefined) return config;
  if (flag !== "auto" && flag !== "legacy" && flag !== "modern")
    throw usageError(
      `serve: --protocol-era ${JSON.stringify(flag)}: give auto (probe each server once, MCP 2026-07-28 else 2025-11-25), legacy (2025-11-25) or modern (2026-07-28)`,
      "serve",
    );
  return {
    ...config,
    servers: config.servers.map((s) => (s.protocolEraOwn ? s : { ...s, protocolEra: flag })),
  };
}

/** L1: `--call-durability`, else the config file's `call_durability`, else write-ahead. */
function durabilityOption(
  flag: string | undefined,
  config: { callDurability?: "write-ahead" | "relaxed"; file: string },
): "write-ahead" | "relaxed" {
  if (flag === undefined) return config.callDurability ?? "write-ahead";
  if (flag === "write-ahead" || flag === "relaxed") return flag;
  throw usageError(
    `serve: --call-durability ${JSON.stringify(flag)}: give write-ahead (each call's start stored before it goes upstream) or relaxed (written behind, faster, a crash may lose calls that ran)`,
    "serve",
  );
}

export async function serveCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(serveSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const port = integerOption(parsed, "http", "serve", 0);
  const httpOptions = httpSecurity(parsed, deps, port !== undefined);
  if (httpOptions.tokenOnCommandLine) {
    o.note(
      `${o.err.yellow("warning:")} --token is visible to every user of this machine (process list, shell history); prefer ${TOKEN_ENV}`,
    );
  }
  const setup = loadServerSetup(
    {
      config: stringOption(parsed, "config"),
      deferral: stringOption(parsed, "deferral"),
      alwaysLoad: stringOption(parsed, "always-load"),
      budget: stringOption(parsed, "deferral-budget"),
    },
    deps,
    "serve",
  );
  const { deferral } = setup;
  const pinningFlags = parsed.values.pinning;
  const config = resolveProtocolEra(
    resolvePinning(setup.config, Array.isArray(pinningFlags) ? pinningFlags : []),
    stringOption(parsed, "protocol-era"),
  );
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const resume = stringOption(parsed, "conversation") ?? stringOption(parsed, "session");
  if (resume !== undefined && port !== undefined) {
    throw usageError(
      "serve: --conversation resumes one conversation over stdio; over HTTP every client session is a new conversation",
      "serve",
    );
  }
  const recordPayloads = booleanOption(parsed, "record-payloads");
  const callDurability = durabilityOption(stringOption(parsed, "call-durability"), setup.config);
  const namePrefix = stringOption(parsed, "name-prefix");
  // R14: the client's own prefix (or its length) is the room wire names leave.
  const outerPrefixBudget =
    namePrefix === undefined
      ? 0
      : /^\d+$/.test(namePrefix)
        ? Number(namePrefix)
        : namePrefix.length;
  if (outerPrefixBudget > MAX_WIRE_NAME_LENGTH - MIN_WIRE_NAME_LENGTH) {
    throw usageError(
      `serve: --name-prefix ${JSON.stringify(namePrefix)} takes ${outerPrefixBudget} of the ${MAX_WIRE_NAME_LENGTH} characters model APIs accept for a tool name; at most ${MAX_WIRE_NAME_LENGTH - MIN_WIRE_NAME_LENGTH} can be reserved`,
      "serve",
    );
  }
  const maxDefinitionKb = integerOption(parsed, "max-definition-kb", "serve", 1);
  if (maxDefinitionKb !== undefined && maxDefinitionKb > MAX_DEFINITION_KB)
    throw usageError(
      `serve: --max-definition-kb may be at most ${MAX_DEFINITION_KB} (KiB): a definition must fit one page of a served list, and pages stay within what clients read (the MCP SDK's stdio client reads at most 10 MiB a message); got ${maxDefinitionKb}`,
      "serve",
    );
  const maxMessageMb = integerOption(parsed, "max-message-mb", "serve", 1);
  const maxMessageBytes = maxMessageMb === undefined ? undefined : maxMessageMb * 1024 * 1024;
  const view = booleanOption(parsed, "view");
  if (view && port === undefined)
    throw usageError("serve: --view serves pages over HTTP; give --http <port> too", "serve");
  const store = await openStore(location, "write");
  let gateway: Gateway | undefined;
  let started: StartedHost | undefined;
  try {
    started = await startHostInBackground(config, o, {
      store,
      now: deps.now,
      version: deps.version,
      env: deps.env,
      ...(outerPrefixBudget ? { outerPrefixBudget } : {}),
      ...(maxMessageBytes ? { maxMessageBytes } : {}),
      ...(maxDefinitionKb === undefined ? {} : { maxDefinitionBytes: maxDefinitionKb * 1024 }),
      pinning: "quarantine",
      onHost: (host) => reportPins(host, o),
      // A4: a server that needs authorization starts the browser step (once) and joins after.
      oauth: oauthRuntimeFor(deps, o, config.file, { interactive: true }),
    });
    const { host } = started;
    // `initialize` is answered at once; a first tools/list waits for the servers still
    // starting, each up to its startup grace (issue 20); the summary says what it held.
    // A4: a server waiting for the user's authorization is said apart from a slow one.
    const summary = () => {
      const tools = host.listTools().length;
      const all = host.extensions();
      const ready = all.filter((e) => e.phase === "ready").length;
      const waiting = all
        .filter((e) => e.phase === "starting" || e.phase === "listing")
        .map((e) => e.name);
      // Issue 34.2: a server that failed to start is said so, not said to be starting.
      const retrying = all.filter((e) => e.phase === "retrying").map((e) => e.name);
      const failed = all.filter((e) => e.phase === "failed").map((e) => e.name);
      const authorizing = all.filter((e) => e.phase === "authorizing").map((e) => e.name);
      return `${tools} tool(s) from ${ready} of ${all.length} server(s)${waiting.length > 0 ? ` (still starting after the startup grace: ${waiting.join(", ")}; they join when ready)` : ""}${retrying.length > 0 ? ` (failed to start: ${retrying.join(", ")}; trying again, they join if they come up)` : ""}${failed.length > 0 ? ` (failed: ${failed.join(", ")}; see above)` : ""}${authorizing.length > 0 ? ` (waiting for OAuth authorization: ${authorizing.join(", ")}; they join once authorized)` : ""}, deferral ${deferral.mode}; calls ${callDurability === "relaxed" ? "written behind (relaxed: a crash may lose the record of the latest calls)" : "written ahead (each start stored before the call goes upstream)"}; registry ${host.streamId} in ${location.path}`;
    };
    const conversation = {
      deferral: {
        mode: deferral.mode,
        alwaysLoad: [...deferral.alwaysLoad],
        ...(deferral.budget === undefined ? {} : { budget: deferral.budget }),
      },
      ...(recordPayloads ? { recordPayloads: true } : {}),
      callDurability,
    };
    const seen: string[] = [];
    const onConversation = (change: { type: "opened" | "closed"; conversation: Conversation }) => {
      const c = change.conversation;
      if (change.type === "opened") {
        seen.push(c.id);
        const client = c.state.conversation?.client;
        o.note(
          `toolledger: conversation ${c.id} opened${client ? ` for ${client.name} ${client.version}` : ""}`,
        );
      } else o.note(`toolledger: conversation ${c.id} closed`);
    };
    let clientGone: () => void = () => {};
    const stopped = waitForStop(
      deps,
      port === undefined ? deps.stdio.input : undefined,
      new Promise<void>((resolve) => {
        clientGone = resolve;
      }),
    );
    if (port === undefined) {
      gateway = await serveGatewayStdio(host, {
        ...(maxMessageBytes ? { maxMessageBytes } : {}),
        onClose: () => clientGone(),
        name: "toolledger",
        version: deps.version,
        stdin: deps.stdio.input as Readable,
        stdout: deps.stdio.output as Writable,
        conversation: { ...conversation, ...(resume !== undefined ? { id: resume } : {}) },
        onConversation,
        onError: (error) => o.note(`${o.err.yellow("warning:")} ${error.message}`),
        onNotice: (message) => o.note(`toolledger: ${message}`),
      });
      o.note(`toolledger: serving over stdio; ${startingNote(host)}`);
      if (await listed(host, stopped)) o.note(`toolledger: serving ${summary()} over stdio`);
    } else {
      const onError = (error: Error) => o.note(`${o.err.yellow("warning:")} ${error.message}`);
      // The view's code (and its tokenizer) loads only when asked for.
      const routes = view
        ? await (async () => {
            const { liveViewRoutes } = await import("../view/liveView.js");
            const { defaultRulesDocument, viewRules } = await import("../view/rulesDocument.js");
            return liveViewRoutes({
              store,
              db: location.path,
              version: deps.version,
              now: deps.now,
              rules: viewRules(defaultRulesDocument()),
              streams: () => [host.streamId, ...seen],
              onError,
            });
          })()
        : undefined;
      const http = await serveGatewayHttp(host, {
        name: "toolledger",
        version: deps.version,
        host: httpOptions.host,
        port,
        ...(httpOptions.token === undefined ? {} : { token: httpOptions.token }),
        allowedOrigins: httpOptions.allowedOrigins,
        conversation,
        onConversation,
        onError,
        onNotice: (message: string) => o.note(`toolledger: ${message}`),
        ...(routes ? { routes } : {}),
      });
      gateway = http;
      o.data(http.url.href);
      const token = httpOptions.token === undefined ? "" : " (bearer token required)";
      o.note(`toolledger: serving at ${http.url.href}${token}; ${startingNote(host)}`);
      if (view) o.note(`toolledger: live view at ${new URL("/view", http.url).href}`);
      if (await listed(host, stopped))
        o.note(`toolledger: serving ${summary()} at ${http.url.href}${token}`);
    }
    const reason = await stopped;
    const db = shellQuote(location.path);
    o.note(
      `toolledger: stopping (${reason}); ${
        seen.length === 1
          ? `replay with \`toolledger replay ${seen[0]} --db ${db}\``
          : `${seen.length} conversation(s); list them with \`toolledger sessions --db ${db}\``
      }`,
    );
    return reason === "input closed" ? EXIT.ok : EXIT.interrupted;
  } finally {
    // Servers still starting are recorded while the conversations are open (issue 20.4).
    await started?.host
      .recordUnfinishedStarts()
      .catch((error: Error) => o.note(`${o.err.yellow("warning:")} ${error.message}`));
    await gateway?.close(deps.signal.aborted ? "gateway interrupted" : "client disconnected");
    await started?.host.close();
    await store.close();
  }
}

/**
 * The HTTP endpoint's exposure: the bind address, the bearer token (flag, else environment)
 * and extra browser origins. Binding beyond loopback without a token is refused before any
 * server starts.
 */
function httpSecurity(
  parsed: ParsedArgs,
  deps: Deps,
  http: boolean,
): {
  host: string;
  token: string | undefined;
  allowedOrigins: string[];
  /** A token given with --token shows in every process list of the machine. */
  tokenOnCommandLine?: boolean;
} {
  const host = stringOption(parsed, "host") ?? "127.0.0.1";
  const flagToken = stringOption(parsed, "token");
  const envToken = deps.env[TOKEN_ENV];
  const token = flagToken ?? (envToken === "" ? undefined : envToken);
  const origins = parsed.values["allow-origin"];
  const allowedOrigins = Array.isArray(origins) ? origins : [];
  if (
    !http &&
    (stringOption(parsed, "host") !== undefined ||
      flagToken !== undefined ||
      allowedOrigins.length > 0)
  )
    throw usageError("serve: --host, --token and --allow-origin apply to --http only", "serve");
  if (!http) return { host, token: undefined, allowedOrigins };
  if (!isLoopbackHost(host) && token === undefined) {
    throw new CliError("usage", `serve: binding to ${host} needs a bearer token`, {
      hint: `anyone who can reach ${host} could use your servers; set ${TOKEN_ENV} (or --token) to a random value of at least ${MIN_TOKEN_LENGTH} characters, e.g. ${TOKEN_ENV}=$(openssl rand -hex 32)`,
    });
  }
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new CliError(
      "usage",
      `serve: the bearer token (${flagToken !== undefined ? "--token" : TOKEN_ENV}) has fewer than ${MIN_TOKEN_LENGTH} characters`,
      { hint: `use a random value, e.g. ${TOKEN_ENV}=$(openssl rand -hex 32)` },
    );
  }
  for (const origin of allowedOrigins) {
    if (origin !== "*" && !/^https?:\/\/[^/]+$/.test(origin))
      throw usageError(
        `serve: --allow-origin must be an origin such as https://app.example.com, got ${JSON.stringify(origin)}`,
        "serve",
      );
  }
  return { host, token, allowedOrigins, tokenOnCommandLine: flagToken !== undefined };
}

/** What a client's first tools/list waits for, said once the gateway is up. */
function startingNote(host: ToolledgerHost): string {
  const n = host.extensions().filter((e) => e.phase !== "ready").length;
  return n === 0
    ? "no server to wait for"
    : `a first tools/list waits for the ${n} server(s) still starting, each up to its startup grace`;
}

/** True once every server is listed or past its startup grace; false when serve stops first. */
async function listed(host: ToolledgerHost, stopped: Promise<string>): Promise<boolean> {
  return Promise.race([host.untilListed().then(() => true), stopped.then(() => false)]);
}

/** Resolves when the client closes stdin or its stream ends (stdio mode), or the user interrupts. */
function waitForStop(
  deps: Deps,
  input: NodeJS.ReadableStream | undefined,
  clientGone: Promise<void>,
): Promise<string> {
  return new Promise((resolve) => {
    if (deps.signal.aborted) return resolve("interrupted");
    deps.signal.addEventListener("abort", () => resolve("interrupted"), { once: true });
    input?.once("end", () => resolve("input closed"));
    input?.once("close", () => resolve("input closed"));
    void clientGone.then(() => resolve("input closed"));
  });
}
