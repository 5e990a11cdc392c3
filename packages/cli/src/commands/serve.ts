import type { Readable, Writable } from "node:stream";
import {
  type Conversation,
  type Gateway,
  serveGatewayHttp,
  serveGatewayStdio,
} from "@toolledger/adapters-mcp";
import { usageError } from "../cliError.js";
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
import { openStore } from "../openStore.js";
import { createOutput } from "../output.js";
import { shellQuote } from "../shellQuote.js";
import { type StartedHost, startHost } from "../startSession.js";
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
  const resume = stringOption(parsed, "conversation") ?? stringOption(parsed, "session");
  if (resume !== undefined && port !== undefined) {
    throw usageError(
      "serve: --conversation resumes one conversation over stdio; over HTTP every client session is a new conversation",
      "serve",
    );
  }
  const recordPayloads = booleanOption(parsed, "record-payloads");
  const view = booleanOption(parsed, "view");
  if (view && port === undefined)
    throw usageError("serve: --view serves pages over HTTP; give --http <port> too", "serve");
  const store = await openStore(location, "write");
  let gateway: Gateway | undefined;
  let started: StartedHost | undefined;
  try {
    started = await startHost(config, o, { store, now: deps.now, version: deps.version });
    const { host } = started;
    const tools = host.listTools().length;
    const connected = host.extensions().filter((e) => e.status === "connected").length;
    const summary = `${tools} tool(s) from ${connected} server(s), deferral ${deferral.mode}; registry ${host.streamId} in ${location.path}`;
    const conversation = {
      deferral: { mode: deferral.mode, alwaysLoad: [...deferral.alwaysLoad] },
      ...(recordPayloads ? { recordPayloads: true } : {}),
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
    const stopped = waitForStop(deps, port === undefined ? deps.stdio.input : undefined);
    if (port === undefined) {
      gateway = await serveGatewayStdio(host, {
        name: "toolledger",
        version: deps.version,
        stdin: deps.stdio.input as Readable,
        stdout: deps.stdio.output as Writable,
        conversation: { ...conversation, ...(resume !== undefined ? { id: resume } : {}) },
        onConversation,
        onError: (error) => o.note(`${o.err.yellow("warning:")} ${error.message}`),
      });
      o.note(`toolledger: serving ${summary} over stdio`);
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
        host: "127.0.0.1",
        port,
        conversation,
        onConversation,
        onError,
        ...(routes ? { routes } : {}),
      });
      gateway = http;
      o.data(http.url.href);
      o.note(`toolledger: serving ${summary} at ${http.url.href}`);
      if (view) o.note(`toolledger: live view at ${new URL("/view", http.url).href}`);
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
    await gateway?.close(deps.signal.aborted ? "gateway interrupted" : "client disconnected");
    await started?.host.close();
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
