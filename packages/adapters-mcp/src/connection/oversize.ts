import { ProtocolError } from "@modelcontextprotocol/client";
import { mib, type OversizeInfo, OversizeMessageError } from "./lineBuffer.js";

/** Marks the error response made for a reply dropped for its size (see LineBuffer). */
const OVERSIZE = "toolledgerOversize";

/** The error response that fails the request a dropped reply answered (see LineBuffer). */
export function oversizeReply(e: OversizeMessageError) {
  if (e.info.kind !== "response" || e.info.id === null) return null;
  return {
    jsonrpc: "2.0" as const,
    id: e.info.id,
    error: { code: -32600, message: e.message, data: { [OVERSIZE]: e.info } },
  };
}

/** The dropped reply a request failed with (an `oversizeReply`), or undefined. */
export function oversizeOfReply(error: unknown): OversizeInfo | undefined {
  return error instanceof ProtocolError
    ? ((error.data as Record<string, unknown> | undefined)?.[OVERSIZE] as OversizeInfo | undefined)
    : undefined;
}

/** A message over the limit that a transport error reports (ours, or the SDK's own buffer's). */
export function oversizeOfTransportError(error: Error): OversizeInfo | null {
  if (error instanceof OversizeMessageError) return error.info;
  const sdkLimit = /ReadBuffer exceeded maximum size of (\d+)/.exec(error.message);
  return sdkLimit
    ? { bytes: 0, limit: Number(sdkLimit[1]), id: null, method: null, kind: "unknown" }
    : null;
}

/** "`who` sent a notification (x) of 12.0 MiB, over the limit of 10.0 MiB per message". */
export function describeOversize(who: string, over: OversizeInfo): string {
  const what =
    over.bytes > 0
      ? `a ${over.kind === "unknown" ? "message" : over.kind}${over.method ? ` (${over.method})` : ""} of ${mib(over.bytes)} MiB`
      : "a message";
  return `${who} sent ${what}, over the limit of ${mib(over.limit)} MiB per message`;
}
