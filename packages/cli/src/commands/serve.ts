import type { Readable, Writable } from "node:stream";
import { type Gateway, serveGatewayHttp, serveGatewayStdio } from "@toolledger/adapters-mcp";
import {
  booleanOption,
  integerOption,
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
import { serveSpec } from "./serveSpec.js";

export async function serveCommand(args: readonly string[], deps: Deps): Promise<number> {
  const parsed = parseCommandArgs(serveSpec, args);
  const o = createOutput(deps);
  if (booleanOption(parsed, "help")) {
    o.data(renderHelp(serveSpec, o.out.bold));
    return EXIT.ok;
  }
  const port = integerOption(parsed, "http", "serve", 0);
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
        host: "127.0.0.1",
        port,
        onError: (error) => o.note(`${o.err.yellow("warning:")} ${error.message}`),
      });
      gateway = http;
      o.data(http.url.href);
      o.note(`toolledger: serving ${summary} at ${http.url.href}`);
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

/** Resolves when the client closes stdin (stdio mode) or the user interrupts. */
function waitForStop(deps: Deps, input: NodeJS.ReadableStream | undefined): Promise<string> {
  return new Promise((resolve) => {
    if (deps.signal.aborted) return resolve("interrupted");
    deps.signal.addEventListener("abort", () => resolve("interrupted"), { once: true });
    input?.once("end", () => resolve("input closed"));
    input?.once("close", () => resolve("input closed"));
  });
}
