import { readFileSync } from "node:fs";
import { createLogLineParser, decodeEvent } from "@toolledger/core";
import { isRecord } from "../config/isRecord.js";
import { CliError } from "../program/cliError.js";
import { conversationStreamOf, orderConversationEntries } from "./conversationEntries.js";
import type { LogEntry } from "./logEntry.js";

export interface JsonlLog {
  file: string;
  entries: LogEntry[];
  /** The session id the lines carry (export envelopes), when they agree on one. */
  session: string | undefined;
  /** Every stream id the lines carry, in order of first appearance (a conversation export has two or more). */
  streams: string[];
}

/**
 * Reads a session log as JSONL: one event per line, either bare (`{"type": …, "v": 1, …}`)
 * or as written by `toolledger export` (`{"session", "position", "eventId", "recordedAt",
 * "metadata", "event"}`). Blank lines are skipped. The first bad line stops the read with
 * its line number and failing field.
 */
export function readJsonl(file: string): JsonlLog {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new CliError("notFound", `no file ${file}`, {
        hint: "check the path, or pass a session id to read from the database",
      });
    }
    throw new CliError("badInput", `cannot read ${file}: ${(error as Error).message}`);
  }
  return parseJsonl(file, text);
}

export function parseJsonl(file: string, text: string): JsonlLog {
  let entries: LogEntry[] = [];
  const sessions = new Set<string>();
  const lines = text.split("\n");
  const parseLine = createLogLineParser();
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === "") continue;
    const line = i + 1;
    let json: unknown;
    try {
      json = parseLine(raw);
    } catch (error) {
      throw new CliError(
        "badInput",
        `${file}:${line}: not valid JSON: ${(error as Error).message}`,
        {
          hint: "each line must be one JSON object (an event, or a line written by `toolledger export`)",
        },
      );
    }
    const envelope = isEnvelope(json) ? json : undefined;
    const result = decodeEvent(envelope ? envelope.event : json);
    if (!result.ok) {
      const field =
        result.error.path === "" ? "" : ` field ${envelope ? "event." : ""}${result.error.path}:`;
      const hint =
        result.error.code === "UNSUPPORTED_VERSION"
          ? "this log was written by a newer toolledger; upgrade to replay it"
          : result.error.code === "UNKNOWN_TYPE"
            ? "the line is not a toolledger event (or comes from a newer version)"
            : "fix or remove the line; positions after it are not read";
      throw new CliError(
        "badInput",
        `${file}:${line}: ${result.error.code}:${field} ${result.error.message}`,
        { hint },
      );
    }
    const entry: LogEntry = { position: entries.length + 1, event: result.event, line };
    if (envelope) {
      if (typeof envelope.session === "string") {
        sessions.add(envelope.session);
        entry.streamId = envelope.session;
      }
      if (typeof envelope.position === "number") entry.streamPosition = envelope.position;
      if (typeof envelope.globalPosition === "number")
        entry.globalPosition = envelope.globalPosition;
      if (typeof envelope.eventId === "string") entry.eventId = envelope.eventId;
      if (typeof envelope.recordedAt === "string") entry.recordedAt = envelope.recordedAt;
      if (isRecord(envelope.metadata)) entry.metadata = envelope.metadata;
    } else if (result.event.at !== undefined) {
      entry.recordedAt = result.event.at;
    }
    entries.push(entry);
  }
  const streams = [...sessions];
  // A conversation export: the conversation is the session, its registry streams come along.
  const conversation = streams.length > 1 ? conversationStreamOf(entries) : null;
  if (conversation !== null) {
    // In fold order and numbered as readSession reads a store (as `export` wrote them).
    entries = orderConversationEntries(entries, conversation);
  }
  return {
    file,
    entries,
    session: streams.length === 1 ? streams[0] : (conversation ?? undefined),
    streams,
  };
}

interface Envelope {
  event: unknown;
  session?: unknown;
  position?: unknown;
  globalPosition?: unknown;
  eventId?: unknown;
  recordedAt?: unknown;
  metadata?: unknown;
}

function isEnvelope(json: unknown): json is Envelope {
  return isRecord(json) && !("type" in json) && isRecord(json.event);
}
