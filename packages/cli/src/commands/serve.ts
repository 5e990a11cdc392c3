import type { Readable, Writable } from "node:stream";
import {
  type Gateway,
  isLoopbackHost,
  MIN_TOKEN_LENGTH,
  serveGatewayHttp,
  serveGatewayStdio,
} from "@toolledger/adapters-mcp";
import { CliError, usageError } from "../cliError.js";
import {
  booleanOption,
  integerOption,
  type ParsedArgs,
  parseCommandArgs,
  renderHelp,
  stringOption,
} from "../commandSpec.js";
import { resolveDatabasePath } from "../databasePath.js";
import type { Deps } from "../deps.js";
import { EXIT } from "../exitCodes.js";
import { loadServerSetup } from "../loadServerSetup.js";
import { newSessionId } from "../newIds.js";
import { openStore } from "../openStore.js";
import { createOutput } from "../output.js";
import { startSession } from "../startSession.js";
import { serveSpec, TOKEN_ENV } from "./serveSpec.js";

export async function serveCommand(args: readonly string[], deps: Deps): Promise<number> {
  const parsed = parseCommandArgs(serveSpec, args);
  const o = createOutput(deps);
  if (booleanOption(parsed, "help")) {
    o.data(renderHelp(serveSpec, o.out.bold));
    return EXIT.ok;
  }
  const port = integerOption(parsed, "http", "serve", 0);
  const httpOptions = httpSecurity(parsed, deps, port !== undefined);
  const { config, deferral } = loadServerSetup(
    {
      config: stringOption(parsed, "config"),
      deferral: stringOption(parsed, "deferral"),
      alwaysLoad: stringOption(parsed, "always-load"),
    },
    deps,
    "serve",
  );
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = openStore(location, "write");
  const streamId = stringOption(parsed, "session") ?? newSessionId(deps.now());
  let gateway: Gateway | undefined;
  let started: Awaited<ReturnType<typeof startSession>> | undefined;
  try {
    started = await startSession(config, deferral, o, {
      store,
      streamId,
      now: deps.now,
      env: deps.env,
    });
    const { session } = started;
    const tools = session.listTools().length;
    const connected = session.extensions().filter((e) => e.status === "connected").length;
    const summary = `${tools} tool(s) from ${connected} server(s), deferral ${deferral.mode}; session ${streamId} in ${location.path}`;
    const stopped = waitForStop(deps, port === undefined ? deps.stdio.input : undefined);
    if (port === undefined) {
      gateway = await serveGatewayStdio(session, {
        name: "toolledger",
        version: deps.version,
        stdin: deps.stdio.input as Readable,
        stdout: deps.stdio.output as Writable,
        onError: (error) => o.note(`${o.err.yellow("warning:")} ${error.message}`),
      });
      o.note(`toolledger: serving ${summary} over stdio`);
    } else {
      const http = await serveGatewayHttp(session, {
        name: "toolledger",
        version: deps.version,
        host: httpOptions.host,
        port,
        ...(httpOptions.token === undefined ? {} : { token: httpOptions.token }),
        allowedOrigins: httpOptions.allowedOrigins,
        onError: (error) => o.note(`${o.err.yellow("warning:")} ${error.message}`),
      });
      gateway = http;
      o.data(http.url.href);
      o.note(
        `toolledger: serving ${summary} at ${http.url.href}${httpOptions.token === undefined ? "" : " (bearer token required)"}`,
      );
    }
    const reason = await stopped;
    o.note(
      `toolledger: stopping (${reason}); replay with \`toolledger replay ${streamId} --db ${location.path}\``,
    );
    return reason === "input closed" ? EXIT.ok : EXIT.interrupted;
  } finally {
    await gateway?.close();
    await started?.session.close();
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
): { host: string; token: string | undefined; allowedOrigins: string[] } {
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
  return { host, token, allowedOrigins };
}

/** Resolves when the client closes stdin (stdio mode) or the user interrupts. */
function waitForStop(deps: Deps, input: NodeJS.ReadableStream | undefined): Promise<string> {
  return new Promise((resolve) => {
    if (deps.signal.aborted) return resolve("interrupted");
    deps.signal.addEventListener("abort", () => resolve("interrupted"), { once: true });
    input?.once("end", () => resolve("input closed"));
    input?.once("close", () => resolve("input closed"));
  });
}
