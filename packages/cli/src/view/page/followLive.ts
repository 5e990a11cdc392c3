import { type FoldedEntry, foldEntries } from "../../session/foldEntries.js";
import type { LogEntry } from "../../session/logEntry.js";
import type { SessionTimeline } from "../sessionTimeline.js";
import type { LiveUpdate, ViewData } from "../viewData.js";
import { fromViewEntry } from "../viewEntries.js";

/** A live page (`serve --view`): later events arrive as server-sent events and are folded on. */
export function followLive(
  url: string,
  data: ViewData,
  log: LogEntry[],
  timeline: SessionTimeline,
  grew: (steps: number) => void,
): void {
  const source = new EventSource(url);
  source.addEventListener("update", (e) => {
    const update = JSON.parse((e as MessageEvent<string>).data) as LiveUpdate;
    data.streams = update.streams;
    for (const v of update.entries) log.push(fromViewEntry(v, data));
    data.tokens.points = update.points;
    // The fold of a longer log begins with the fold of the shorter one: only new steps are added.
    let i = 0;
    const added: FoldedEntry[] = [];
    for (const step of foldEntries(log)) if (i++ >= timeline.length) added.push(step);
    timeline.append(added);
    grew(update.steps);
  });
}
