import type { AnyEvent, DescribeContext, EventDescription } from "./eventDescription.js";

/** S2: a recorded search as the timeline shows it: its query and the names it returned. */
export function describeSearch(
  event: AnyEvent,
  ctx: DescribeContext,
): EventDescription & { related?: number } {
  const query = typeof event.query === "string" ? event.query : "";
  const results = Array.isArray(event.results) ? event.results.map(String) : [];
  const error = (event.error as { message?: unknown } | undefined)?.message;
  const call = ctx.calls.get(typeof event.callId === "string" ? event.callId : "");
  const extensions = [...new Set(results.map((n) => n.split("__")[0]!).filter((k) => k !== ""))];
  return {
    extensions,
    text:
      typeof error === "string"
        ? `search ${JSON.stringify(query)} refused: ${error}`
        : `search ${JSON.stringify(query)} → ${results.length > 0 ? results.join(", ") : "nothing"}${event.truncated ? " (regex budget used up)" : ""}`,
    severity: typeof error === "string" ? "warn" : "info",
    rules: ["S2", "S1"],
    ...(call === undefined ? {} : { related: call.index }),
  };
}
