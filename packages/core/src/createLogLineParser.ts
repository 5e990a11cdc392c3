/**
 * `JSON.parse` for the lines of one event log, read in order. A `ToolsFetched` line carries
 * the extension's whole tool list, and most refetches list exactly what the last fetch did:
 * when a line's list is the same text as the extension's previous list, the parsed list is
 * reused instead of parsed again (most of a long log's bytes are such lists). The result is
 * what `JSON.parse(line)` returns (same values, same key order) for every line, valid or not;
 * repeated lists are the same array object in each event, so results must not be mutated.
 * Bare events and `toolledger export` lines (`{ …, "event": { … } }`) are both recognised.
 */
export function createLogLineParser(): (line: string) => unknown {
  const lists = new Map<string, { text: string; tools: unknown }>();
  return (line) => {
    const cut = line.indexOf(TOOLS_KEY);
    if (cut === -1) return JSON.parse(line);
    try {
      const parsed = splitAtTools(line, cut, lists);
      if (parsed !== undefined) return parsed;
    } catch {
      // Some part is not JSON on its own: the whole line decides (and words any error).
    }
    return JSON.parse(line);
  };
}

const TOOLS_KEY = ',"tools":[';
const EVENT_KEY = ',"event":{';
/** Lists remembered at most (one per extension); past it, the memory starts over. */
const MAX_LISTS = 4096;

/**
 * The line as `head`, `,"tools":`, `list` and closing braces, each part parsed alone, when it
 * has that shape: the tools key last in a bare event (`…]}`) or in an export line's `event`,
 * itself the line's last key (`…]}}`). Each head parses as a non-empty object without the key
 * that follows it and the list as one array, which makes the line valid JSON with exactly
 * these values; undefined for any other shape.
 */
function splitAtTools(
  line: string,
  cut: number,
  lists: Map<string, { text: string; tools: unknown }>,
): unknown {
  const end = line.length;
  let envelope: Record<string, unknown> | undefined;
  let eventStart = 0;
  let listEnd = end - 1;
  if (line.endsWith("]}}")) {
    eventStart = line.lastIndexOf(EVENT_KEY, cut);
    if (eventStart === -1) return undefined;
    envelope = headObject(line.slice(0, eventStart), "event");
    if (envelope === undefined) return undefined;
    eventStart += EVENT_KEY.length - 1;
    listEnd = end - 2;
  } else if (!line.endsWith("]}")) return undefined;
  const event = headObject(line.slice(eventStart, cut), "tools");
  if (event === undefined || typeof event.extension !== "string") return undefined;
  const text = line.slice(cut + TOOLS_KEY.length - 1, listEnd);
  const known = lists.get(event.extension);
  let tools: unknown;
  if (known !== undefined && known.text === text) tools = known.tools;
  else {
    // The text starts with `[`: an array, or a syntax error.
    tools = JSON.parse(text);
    if (lists.size >= MAX_LISTS) lists.clear();
    lists.set(event.extension, { text, tools });
  }
  event.tools = tools;
  if (envelope === undefined) return event;
  envelope.event = event;
  return envelope;
}

/** `head` closed with `}`, when that is a non-empty plain object without `next` (else undefined). */
function headObject(head: string, next: string): Record<string, unknown> | undefined {
  const value: unknown = JSON.parse(`${head}}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const object = value as Record<string, unknown>;
  let keys = 0;
  for (const key in object) {
    if (key === next) return undefined;
    keys++;
  }
  return keys > 0 ? object : undefined;
}
