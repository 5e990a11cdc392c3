import { listExtensions, resolveTool, type State } from "@toolledger/core";
import { loadedNames, requestedNames } from "./gooseDeferral.js";
import { type Fact, recordedCallId } from "./gooseFact.js";
import { mapOutcome } from "./gooseOutcome.js";
import type { GooseCall } from "./scanGooseSession.js";

const v = 1 as const;

/** A goose tool request as `ToolCallStarted` (a reused id gets `~2`, `~3`: C4 pairs by id). */
export function callStarted(c: GooseCall): Fact {
  return {
    key: `call:${c.key}`,
    stream: "conversation",
    kind: "exact",
    build: (ctx) => {
      let callId = c.id;
      for (let n = 2; ctx.callIds.has(callId); n++) callId = `${c.id}~${n}`;
      const resolved = c.call.ok ? resolveTool(ctx.state, c.name) : null;
      return {
        type: "ToolCallStarted",
        v,
        at: c.at,
        callId,
        name: c.name,
        publicName: resolved?.ok ? resolved.publicName : null,
        owner: resolved?.ok ? resolved.extension : null,
        rawName: resolved?.ok ? resolved.rawName : null,
      };
    },
  };
}

/** A goose tool response as `ToolCallFinished`, under the call id its request was recorded with. */
export function callFinished(c: GooseCall): Fact {
  const mapped = mapOutcome(c.call, c.response!.result);
  return {
    key: `finish:${c.key}`,
    stream: "conversation",
    kind: "exact",
    note: "the outcome is goose's; the duration is read from message times (whole seconds)",
    build: (ctx) => {
      const callId = recordedCallId(ctx, `call:${c.key}`);
      if (callId === null) return null;
      return {
        type: "ToolCallFinished",
        v,
        at: c.response!.at,
        callId,
        outcome: mapped.outcome,
        durationMs: Math.max(0, (c.response!.created - c.created) * 1000),
        reason: mapped.reason,
        error: mapped.error,
      };
    },
  };
}

/** A deferred-loading request as `EnableToolsRequested`, naming what goose's answer loaded. */
export function enableRequested(c: GooseCall): Fact {
  const asked = c.call.ok ? requestedNames(c.call.arguments) : { names: [], query: null };
  const loaded = c.response?.result.ok ? loadedNames(c.response.result.text) : [];
  const exact = loaded.length === 0 || sameSet(asked.names, loaded);
  return {
    key: `enable-req:${c.key}`,
    stream: "conversation",
    kind: exact && asked.names.length > 0 ? "exact" : "inferred",
    ...(exact && asked.names.length > 0
      ? {}
      : {
          note: "the names goose's answer loaded (the request named others, or asked by query)",
        }),
    build: (ctx) => {
      const callId = recordedCallId(ctx, `call:${c.key}`);
      if (callId === null) return null;
      const names = (loaded.length > 0 ? loaded : asked.names).map((n) =>
        publicNameFor(ctx.state, n),
      );
      return { type: "EnableToolsRequested", v, at: c.at, callId, names };
    },
  };
}

/** goose's answer to a deferred-loading request as `EnableToolsResponded`. */
export function enableResponded(c: GooseCall): Fact {
  const r = c.response!.result;
  const ok = r.ok && !r.isError;
  return {
    key: `enable-resp:${c.key}`,
    stream: "conversation",
    kind: "exact",
    build: (ctx) => {
      const callId = recordedCallId(ctx, `call:${c.key}`);
      if (callId === null) return null;
      return ok
        ? { type: "EnableToolsResponded", v, at: c.response!.at, callId, ok: true }
        : {
            type: "EnableToolsResponded",
            v,
            at: c.response!.at,
            callId,
            ok: false,
            error: { code: "GOOSE_ERROR", message: r.ok ? r.text : r.error, invalid: [] },
          };
    },
  };
}

function publicNameFor(state: State, name: string): string {
  const r = resolveTool(state, name);
  if (r.ok) return r.publicName;
  // goose's load_tools also takes the name after the prefix (tool_deferral.rs `find`).
  for (const ext of listExtensions(state))
    for (const t of ext.tools) if (t.rawName === name) return t.publicName;
  return name;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const bare = (x: string) => (x.includes("__") ? x.slice(x.indexOf("__") + 2) : x);
  const norm = (xs: readonly string[]) => [...new Set(xs.map(bare))].sort().join("\n");
  return norm(a) === norm(b);
}
