import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the authorization server sent back to the redirect URI. */
export type CallbackResult =
  /** `iss`: the authorization server's RFC 9207 issuer, when it sent one (SDK 2 checks it). */
  | { ok: true; code: string; iss?: string }
  | { ok: false; error: string; description: string | null };

/** The redirect's path on the loopback listener. */
export const CALLBACK_PATH = "/callback";

/**
 * A1: the loopback end of the browser step (RFC 8252): `http://127.0.0.1:<port>/callback`
 * receives the authorization response once. A response whose `state` is not ours is refused
 * (and the listener keeps waiting); the first good one settles `result` and the listener
 * closes. The browser gets a short page saying what happened, never the code.
 */
export class CallbackListener {
  readonly redirectUri: string;
  readonly result: Promise<CallbackResult>;
  readonly #server: ReturnType<typeof createServer>;
  #state: string | null = null;
  #settle!: (result: CallbackResult) => void;
  #closed = false;

  private constructor(server: ReturnType<typeof createServer>, port: number, label: string) {
    this.#server = server;
    this.redirectUri = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
    this.result = new Promise((resolve) => {
      this.#settle = resolve;
    });
    server.on("request", (req, res) => this.#handle(req, res, label));
  }

  /** Listens on 127.0.0.1 (`port` 0: a free one). A taken port is an error naming it. */
  static async listen(port: number, label: string): Promise<CallbackListener> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error: NodeJS.ErrnoException) =>
        reject(
          error.code === "EADDRINUSE"
            ? new Error(
                `the OAuth callback port ${port} is in use by another program; free it, or set another oauth.callbackPort (one the client's registration allows)`,
              )
            : error,
        ),
      );
      server.listen(port, "127.0.0.1", () => resolve());
    });
    const bound = (server.address() as AddressInfo).port;
    return new CallbackListener(server, bound, label);
  }

  /** The `state` the authorization request carries (only a response with it is accepted). */
  expect(state: string): void {
    this.#state = state;
  }

  /**
   * A1 `--no-browser`: the callback URL the user pasted (the browser could not reach this
   * machine's loopback). Returns false, changing nothing, when it is not a callback of ours.
   */
  accept(pasted: string): CallbackResult | null {
    let url: URL;
    try {
      url = new URL(pasted.trim());
    } catch {
      return null;
    }
    const result = this.#read(url.searchParams);
    if (result === null) return null;
    this.#settle(result);
    void this.close();
    return result;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#settle({ ok: false, error: "cancelled", description: "the authorization was abandoned" });
    this.#server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #read(params: URLSearchParams): CallbackResult | null {
    if (this.#state === null || params.get("state") !== this.#state) return null;
    const code = params.get("code");
    const iss = params.get("iss");
    if (code) return iss ? { ok: true, code, iss } : { ok: true, code };
    const error = params.get("error");
    if (error) return { ok: false, error, description: params.get("error_description") };
    return null;
  }

  #handle(req: IncomingMessage, res: ServerResponse, label: string): void {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== CALLBACK_PATH) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    const result = this.#read(url.searchParams);
    if (result === null) {
      res
        .writeHead(400, { "content-type": "text/html; charset=utf-8" })
        .end(
          page(
            "Not this authorization",
            `This response does not belong to the authorization toolledger is waiting for (${escapeHtml(label)}). Start it again with toolledger auth login.`,
          ),
        );
      return;
    }
    res
      .writeHead(result.ok ? 200 : 400, {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        // The code is in this page's URL: it must not leave through a Referer.
        "referrer-policy": "no-referrer",
      })
      .end(
        result.ok
          ? page(
              "Authorized",
              `toolledger is now authorized for ${escapeHtml(label)}. You can close this tab.`,
            )
          : page(
              "Not authorized",
              `The authorization server answered ${escapeHtml(result.error)}${result.description ? `: ${escapeHtml(result.description)}` : ""}. You can close this tab.`,
            ),
      );
    this.#settle(result);
    // Closed once the page is out (closing first would cut it).
    res.once("close", () => void this.close());
  }
}

function page(title: string, body: string): string {
  return `<!doctype html><meta charset="utf-8"><title>toolledger: ${title}</title><body style="font-family:system-ui;margin:3em"><h1>${title}</h1><p>${body}</p></body>\n`;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}
