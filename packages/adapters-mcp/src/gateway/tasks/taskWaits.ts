import { ProtocolErrorCode, RELATED_TASK_META_KEY } from "@modelcontextprotocol/server";
import { ProtocolError } from "../protocolError.js";
import type { TaskEntry } from "./taskEntry.js";

/** A server's "no such task" (-32602 Task not found / expired). */
export function isGone(e: ProtocolError): boolean {
  return (
    e.code === ProtocolErrorCode.InvalidParams && /task not found|task has expired/i.test(e.message)
  );
}

export function untilEnded(entry: TaskEntry, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise((resolve, reject) => {
    const stop = () => reject(cancelled());
    signal.addEventListener("abort", stop, { once: true });
    void entry.ended.then(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    });
  });
}

function cancelled(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidRequest, "Request cancelled");
}

export function withoutRelatedTask(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta || !(RELATED_TASK_META_KEY in meta)) return result;
  const { [RELATED_TASK_META_KEY]: _up, ...rest } = meta;
  return Object.keys(rest).length > 0 ? { ...result, _meta: rest } : withoutMeta(result);
}

function withoutMeta(result: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _m, ...rest } = result;
  return rest;
}
