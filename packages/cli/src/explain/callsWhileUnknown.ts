import type { LogEntry } from "../session/logEntry.js";
import { markedCalls } from "./callRegistryMark.js";
import type { Explanation } from "./explanation.js";

/**
 * A name no extension of the log ever listed but that calls named (an imported session whose
 * host answered them itself, or a gateway's refused call): the explanation says how often,
 * and where, instead of only "unknown". Unchanged when no call named it.
 */
export function explainCallsWhileUnknown(
  entries: readonly LogEntry[],
  explanation: Explanation,
): Explanation {
  if (explanation.status !== "unknown") return explanation;
  const name = explanation.publicName;
  const positions = markedCalls(entries)
    .filter((c) => c.mark === "unknown" && c.name.trim() === name)
    .map((c) => c.position);
  if (positions.length === 0) return explanation;
  const times = `${positions.length} time${positions.length === 1 ? "" : "s"}`;
  return {
    ...explanation,
    summary: `${name} was called ${times} while unknown to the registry: no extension of this log listed a tool of that name`,
    reasons: [
      ...explanation.reasons,
      {
        rule: "R13",
        text: `called ${times} while unknown to the registry: no public name resolved, so ${entries.some((e) => e.event.origin) ? "the host that recorded the session (an imported one) answered the call itself" : "the call was refused"}; an imported session's tool lists hold only the names its host ran, not ones it answered "not found"`,
        positions,
      },
    ],
  };
}
