import type { Command } from "@toolledger/core";
import { type AdapterError, asAdapterError } from "../../adapterError.js";
import type { ExtensionConnection } from "../../connection/extensionConnection.js";
import { fetchTools } from "../../connection/fetchTools.js";
import type { StreamWriter } from "../../ledger/streamWriter.js";
import { withinCap } from "./oversizedDefinitions.js";

export interface ToolsFetchLimits {
  requestTimeoutMs: number;
  maxPages: number;
  /** R14: characters the host's own client puts in front of every tool name. */
  outerPrefixBudget: number;
  /** V3: the largest tool definition recorded (JSON bytes); a larger one is reported instead. */
  maxDefinitionBytes: number;
}

/**
 * R9/R11: lists the tools of `connection` and records the outcome on the registry stream
 * (ToolsFetched, or ToolsFetchFailed with `note` after the error), scoped to the extension.
 * Nothing is recorded when `current()` says the connection was replaced or dropped
 * meanwhile. Returns the failure, if any.
 */
export async function recordToolsFetch(
  writer: StreamWriter,
  connection: ExtensionConnection,
  key: string,
  limits: ToolsFetchLimits,
  options: {
    note?: (e: AdapterError) => string;
    current: () => boolean;
    /** P2: decides the listing against the pins ledger before it is recorded. */
    beforeRecord?: (command: Command) => Promise<void>;
  },
): Promise<AdapterError | null> {
  const startedAtVersion = writer.state.version;
  let command: Command;
  let failure: AdapterError | null = null;
  try {
    const fetched = await fetchTools(connection, {
      requestTimeoutMs: limits.requestTimeoutMs,
      maxPages: limits.maxPages,
    });
    // V3: a tool over the cap is not recorded (nor served): the listing reports it instead.
    const { kept, oversized } = withinCap(fetched.tools, limits.maxDefinitionBytes, (t) => t.name);
    command = {
      type: "RecordFetch",
      extension: key,
      startedAtVersion,
      tools: kept,
      ...(oversized.length > 0 ? { oversized } : {}),
      // R9: a partial listing is recorded as such, with why it stopped.
      ...(fetched.complete ? {} : { complete: false, reason: fetched.reason ?? "partial" }),
      // R14: wire names leave room for the prefix the host's own client puts in front.
      ...(limits.outerPrefixBudget > 0 ? { outerPrefixBudget: limits.outerPrefixBudget } : {}),
      // R11: only this extension's own list changes make it stale.
      scope: "extension",
    };
  } catch (error) {
    const e = asAdapterError(error);
    if (e.code === "SESSION_CLOSED") return null;
    failure = e;
    command = {
      type: "RecordFetchFailure",
      extension: key,
      startedAtVersion,
      error: `${e.message}${options.note?.(e) ?? ""}`,
      scope: "extension",
    };
  }
  if (!options.current()) return null;
  await options.beforeRecord?.(command);
  await writer.execute(() => command);
  return failure;
}

/**
 * R9: a failure that is not a listing (a start that failed, a crash, a hang, a start cut
 * short), recorded as a failed fetch at the current version so it shows in the diagnostics.
 */
export function recordFetchFailure(writer: StreamWriter, key: string, error: string) {
  return writer.execute((state) => ({
    type: "RecordFetchFailure",
    extension: key,
    startedAtVersion: state.version,
    error,
    scope: "extension",
  }));
}
