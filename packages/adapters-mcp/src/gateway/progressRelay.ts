import type { Progress, Server } from "@modelcontextprotocol/server";
import type { DownstreamExtra } from "./downstreamPeer.js";
import { asError } from "./protocolError.js";
import { sendProgress } from "./sendProgress.js";

export interface ProgressRelay {
  onprogress: (progress: Progress) => void;
  /** Resolves once the relayed reports are written (see `progressRelay`). */
  flush: () => Promise<void>;
}

/** How long a response waits for the client's answer to the ping behind its progress (see `progressRelay`). */
const PING_TIMEOUT_MS = 2_000;

/**
 * G1: progress the server reports goes down with the client's own token. `flush` runs
 * before the response: an SDK client that reads a progress notification and the response
 * in one chunk drops the notification (it forgets the token before the notification's
 * handler runs), so after relaying progress the gateway pings the client first. A client
 * answers a ping only after handling what came before it, and it costs one round trip
 * only for calls that reported progress.
 */
export function progressRelay(
  extra: DownstreamExtra,
  token: string | number,
  report: (error: Error) => void,
  server?: Server,
): ProgressRelay {
  let last: Promise<void> | null = null;
  // Posted to the stdio transport: written in order, before the ping sent after them.
  let posted = false;
  return {
    onprogress: (p) => {
      const sent = sendProgress(server, extra, { ...p, progressToken: token });
      if (sent === null) posted = true;
      else last = sent.catch((error: unknown) => report(asError(error)));
    },
    flush: async () => {
      if (last === null && !posted) return;
      if (last !== null) await last;
      // A client that cannot answer a ping only loses the ordering, never the response. A
      // 2026-07-28 request has no ping (the SDK throws before sending; its progress is on the
      // response's own stream, ahead of the result, anyway).
      await Promise.resolve()
        .then(() => extra.mcpReq.send({ method: "ping" }, { timeout: PING_TIMEOUT_MS }))
        .catch(() => undefined);
    },
  };
}

/**
 * G1: a request's `_meta` split for the way up: the progress token is re-minted upstream and
 * the server's progress relayed with the client's token; every other entry goes up as sent.
 * Nothing is paid without them.
 */
export function relayedMeta(
  extra: DownstreamExtra,
  meta: Record<string, unknown>,
  report: (error: Error) => void,
  server?: Server,
): {
  progress: ProgressRelay | null;
  options: { onprogress?: ProgressRelay["onprogress"]; meta?: Record<string, unknown> };
} {
  const { progressToken, ...rest } = meta;
  const progress =
    typeof progressToken === "string" || typeof progressToken === "number"
      ? progressRelay(extra, progressToken, report, server)
      : null;
  return {
    progress,
    options: {
      ...(progress ? { onprogress: progress.onprogress } : {}),
      ...(Object.keys(rest).length > 0 ? { meta: rest } : {}),
    },
  };
}
