import { createInterface } from "node:readline";
import {
  type AuthorizationPrompt,
  CALLBACK_PATH,
  readOAuthStatus,
  ServerAuthorizer,
} from "@toolledger/adapters-mcp";
import type { Output } from "../output/output.js";
import { shellQuote } from "../output/shellQuote.js";
import { CliError, usageError } from "../program/cliError.js";
import { booleanOption, type ParsedArgs } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { remoteServer, userTokenStore } from "../serve/authTarget.js";
import { browserPrompt } from "../serve/oauthRuntimeFor.js";

/** A1: `toolledger auth login <server>`: the authorization code flow (or client credentials) now. */
export async function authLogin(
  { parsed, o }: { parsed: ParsedArgs; o: Output },
  deps: Deps,
): Promise<number> {
  const name = parsed.positionals[1];
  if (name === undefined)
    throw usageError(
      "auth login: name the server to authorize (toolledger auth login <server>)",
      "auth",
    );
  const { server, file } = remoteServer(parsed, deps, name, "login");
  const store = userTokenStore(deps);
  const authorizer = new ServerAuthorizer({
    name: server.name,
    serverUrl: server.url,
    ...(server.oauth ? { settings: server.oauth } : {}),
    store,
    prompt: null,
    loginCommand: `toolledger auth login ${shellQuote(server.name)} --config ${shellQuote(file)}`,
  });
  const prompt = booleanOption(parsed, "no-browser")
    ? pastePrompt(deps, o)
    : browserPrompt(deps.env, o);
  const stop = () => void authorizer.close();
  deps.signal.addEventListener("abort", stop, { once: true });
  let outcome: Awaited<ReturnType<ServerAuthorizer["login"]>>;
  try {
    outcome = await authorizer.login(prompt, {
      ...(server.headers ? { headers: server.headers } : {}),
      sse: server.type === "sse",
    });
  } catch (error) {
    throw new CliError(
      "serverFailure",
      `auth login: ${server.name}: ${authorizer.redactor.redact(error instanceof Error ? error.message : String(error))}`,
      {
        hint: "check the server's URL; with a server that offers no dynamic registration, set oauth.clientId in the config",
      },
    );
  } finally {
    deps.signal.removeEventListener("abort", stop);
    await authorizer.close();
  }
  if (deps.signal.aborted) return EXIT.interrupted;
  if (!outcome.ok) {
    if (outcome.error === "not_required") {
      o.note(`toolledger: ${outcome.message}`);
      return EXIT.ok;
    }
    throw new CliError("serverFailure", `auth login: ${outcome.message}`, {
      hint: `try again with \`toolledger auth login ${shellQuote(server.name)} --config ${shellQuote(file)}\``,
    });
  }
  const status = readOAuthStatus(store, { serverUrl: authorizer.serverUrl })[0];
  const grant = status?.grants.find((g) => g.issuer === status.issuer) ?? status?.grants[0];
  if (booleanOption(parsed, "json")) {
    o.json({ server: server.name, url: authorizer.serverUrl, ...grant });
  } else {
    o.note(
      `toolledger: authorized ${server.name} with ${grant?.issuer ?? "its authorization server"}${grant && grant.scopes.length > 0 ? ` (scopes: ${grant.scopes.join(" ")})` : ""}${grant?.expiresAt ? `; the token expires ${grant.expiresAt}${grant.refreshable ? " and is refreshed automatically" : ""}` : ""}`,
    );
  }
  return EXIT.ok;
}

/** A1 `--no-browser`: the URL printed, the address the browser ended on read from stdin. */
function pastePrompt(deps: Deps, o: Output): AuthorizationPrompt {
  let lines: AsyncIterator<string> | undefined;
  let asked = false;
  return {
    async present(url) {
      o.note(
        `Open this URL in a browser (on any machine):\n\n  ${url.href}\n\nthen paste here the address the browser ended on (it starts with http://127.0.0.1:<port>${CALLBACK_PATH}; a page that does not load is fine) and press Enter:`,
      );
      return "printed";
    },
    async pasted() {
      if (asked)
        o.note(
          `that is not the address of this authorization (http://127.0.0.1:<port>${CALLBACK_PATH}?code=…&state=…); paste it again:`,
        );
      asked = true;
      lines ??= createInterface({ input: deps.stdio.input, terminal: false })[
        Symbol.asyncIterator
      ]();
      const next = await lines.next();
      return next.done ? null : next.value;
    },
  };
}
