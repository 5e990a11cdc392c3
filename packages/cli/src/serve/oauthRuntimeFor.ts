import {
  type AuthorizationPrompt,
  type OAuthRuntime,
  OAuthTokenStore,
  openBrowser,
} from "@toolledger/adapters-mcp";
import type { Output } from "../output/output.js";
import { shellQuote } from "../output/shellQuote.js";
import type { Deps } from "../program/deps.js";

/**
 * A1–A4: how a command's gateway authorizes remote servers: tokens in the user's store
 * (`$XDG_CONFIG_HOME/toolledger/oauth`), refreshed as needed. `serve` asks the user itself
 * (the browser step, once per server and scope set); other commands never open a browser and
 * say to run `toolledger auth login`.
 */
export function oauthRuntimeFor(
  deps: Pick<Deps, "env" | "home">,
  o: Output,
  configFile: string,
  options: { interactive: boolean },
): OAuthRuntime {
  return {
    store: new OAuthTokenStore(OAuthTokenStore.defaultDir(deps.env, deps.home)),
    prompt: options.interactive ? browserPrompt(deps.env, o) : null,
    loginCommand: (name) =>
      `toolledger auth login ${shellQuote(name)} --config ${shellQuote(configFile)}`,
  };
}

/** The browser step of `serve` and `auth login`: `$BROWSER` or the platform's opener, the URL said on stderr either way. */
export function browserPrompt(
  env: Readonly<Record<string, string | undefined>>,
  o: Output,
): AuthorizationPrompt {
  return {
    async present(url, server) {
      const how = await openBrowser(url.href, env);
      o.note(
        how === "browser"
          ? `toolledger: ${server} needs OAuth authorization; a browser opened ${url.href} (open it yourself if none did)`
          : `toolledger: ${server} needs OAuth authorization: open ${url.href} in a browser on this machine`,
      );
      return how;
    },
  };
}
