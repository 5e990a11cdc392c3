import type { FetchLike } from "@modelcontextprotocol/client";
import { auth } from "@modelcontextprotocol/client";
import type { Redactor } from "../redaction/redactor.js";
import type { AuthorizationPrompt, Challenge } from "./authorizationTypes.js";
import { CallbackListener, type CallbackResult } from "./callbackListener.js";
import { failureOf } from "./oauthFailure.js";
import type { BrowserOutcome } from "./openBrowser.js";
import type { StoreOAuthProvider } from "./storeProvider.js";

export type StepOutcome = { ok: true } | { ok: false; error: string; message: string };

/** One browser step in progress (A1): its URL shown, the redirect awaited, the code exchanged. */
export interface AuthorizationStep {
  /** How the URL reached the user. */
  readonly shown: BrowserOutcome;
  /** Settles when the code was exchanged, the user refused, it timed out or it was cancelled. */
  readonly done: Promise<StepOutcome>;
  cancel(): Promise<void>;
}

/**
 * A1: starts the authorization code flow: listens on the loopback redirect, lets the SDK
 * discover, register (pre-registered client, else client ID metadata document, else dynamic
 * registration) and build the authorization URL (PKCE S256, `state`, `resource`, scope), shows
 * it, and exchanges the code the redirect brings (or the callback URL the user pasted).
 */
export async function startAuthorizationStep(options: {
  name: string;
  serverUrl: string;
  provider: StoreOAuthProvider;
  prompt: AuthorizationPrompt;
  scopes: string[];
  challenge: Challenge;
  fetch: FetchLike;
  timeoutMs: number;
  redactor: () => Redactor;
  onSecret: (value: string) => void;
  onShown: (how: BrowserOutcome) => void;
}): Promise<AuthorizationStep> {
  const { provider, challenge } = options;
  const listener = await listen(provider, options.name);
  const scope = options.scopes.length > 0 ? options.scopes.join(" ") : undefined;
  const request = {
    serverUrl: options.serverUrl,
    ...(scope ? { scope } : {}),
    ...(challenge.resourceMetadataUrl
      ? { resourceMetadataUrl: challenge.resourceMetadataUrl }
      : {}),
    fetchFn: options.fetch,
  };
  provider.beginFlow({ redirectUri: listener.redirectUri, scope });
  let result: Awaited<ReturnType<typeof auth>>;
  try {
    result = await auth(provider, request);
  } catch (error) {
    provider.showTokens();
    await listener.close();
    throw error;
  }
  const url = provider.authorizationUrl;
  const state = provider.flowState;
  if (result === "AUTHORIZED" || url === null || state === null) {
    provider.showTokens();
    await listener.close();
    return { shown: "browser", done: Promise.resolve({ ok: true }), cancel: async () => {} };
  }
  listener.expect(state);
  const shown = await options.prompt.present(url, options.name);
  options.onShown(shown);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<CallbackResult>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          ok: false,
          error: "timeout",
          description: `no authorization arrived within ${Math.round(options.timeoutMs / 1000)} s`,
        }),
      options.timeoutMs,
    );
    timer.unref?.();
  });
  const pasted: Promise<CallbackResult> = options.prompt.pasted
    ? readPasted(options.prompt.pasted, listener)
    : new Promise<CallbackResult>(() => {});
  const done = (async (): Promise<StepOutcome> => {
    const r = await Promise.race([listener.result, timedOut, pasted]);
    try {
      if (!r.ok) {
        return {
          ok: false,
          error: r.error,
          message: `${options.name}: the authorization ended with ${r.error}${r.description ? ` (${options.redactor().head(r.description, 300)})` : ""}`,
        };
      }
      options.onSecret(r.code);
      // RFC 9207: the callback's `iss` goes with the code, for SDK 2 to check against the
      // issuer it discovered (a missing one fails only where the server says it sends one).
      await auth(provider, {
        ...request,
        authorizationCode: r.code,
        ...(r.iss === undefined ? {} : { iss: r.iss }),
      });
      return { ok: true };
    } catch (error) {
      const f = failureOf(error, options.redactor());
      return {
        ok: false,
        error: f.code,
        message: `${options.name}: exchanging the code failed: ${f.message}`,
      };
    } finally {
      clearTimeout(timer);
      provider.showTokens();
      await listener.close();
    }
  })();
  return { shown, done, cancel: () => listener.close() };
}

/**
 * The redirect listener: the port a dynamically registered client was registered with (else
 * `oauth.callbackPort`, else a free one). A registered port now taken, or another configured
 * one, drops that registration: the client registers again with the new redirect.
 */
async function listen(provider: StoreOAuthProvider, name: string): Promise<CallbackListener> {
  const wanted = provider.settings.callbackPort;
  const client = provider.grant()?.client;
  if (client?.kind === "dynamic" && client.redirectUri) {
    const registered = Number(new URL(client.redirectUri).port);
    if (wanted === undefined || wanted === registered) {
      try {
        return await CallbackListener.listen(registered, name);
      } catch {
        // Taken: registered again below with another port.
      }
    }
    provider.invalidateCredentials("client");
  }
  return CallbackListener.listen(wanted ?? 0, name);
}

/** `--no-browser`: the pasted callback URL, checked like a redirect (state included). */
async function readPasted(
  read: () => Promise<string | null>,
  listener: CallbackListener,
): Promise<CallbackResult> {
  for (;;) {
    const text = await read();
    if (text === null) return new Promise<CallbackResult>(() => {});
    const result = listener.accept(text);
    if (result !== null) return result;
  }
}
