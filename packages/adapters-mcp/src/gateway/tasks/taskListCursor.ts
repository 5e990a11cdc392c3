import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import { ProtocolError } from "../protocolError.js";

/** G4: `tasks/list`'s opaque cursor: where the next page starts, base64url JSON. */
export function writeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ offset }), "utf8").toString("base64url");
}

/** The offset a cursor of ours names; anything else is -32602 (MCP: an invalid cursor). */
export function readCursor(cursor: string): number {
  try {
    const { offset } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as {
      offset?: unknown;
    };
    if (typeof offset === "number" && Number.isInteger(offset) && offset >= 0) return offset;
  } catch {
    // Not one of ours: answered below.
  }
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid cursor for tasks/list: ${cursor}`,
  );
}
