/**
 * `JSON.parse` for the lines of one event log, read in order. A `ToolsFetched` line carries
 * the extension's whole tool list, and most refetches list exactly what the last fetch did:
 * when a line's list is the same text as the extension's previous list, the parsed list is
 * reused instead of parsed again (most of a long log's bytes are such lists). The result is
 * what `JSON.parse(line)` returns (same values, same key order) for every line, valid or not;
 * repeated lists are the same array object in each event, so results must not be mutated.
 * Bare events and `toolledger export` lines (`{ …, "event": { … } }`) are both recognised.
 * A bare `ToolsInvalidated` as the decider writes it (most of a long log's lines) is read
 * by one regular expression, several times faster than `JSON.parse` on lines this short.
 */
export function createLogLineParser(): (line: string) => unknown {
  const lists = new Map<string, KnownList>();
  return (line) => {
    const invalidated = INVALIDATED.exec(line);
    if (invalidated !== null)
      return { type: "ToolsInvalidated", v: 1, at: invalidated[1], extension: invalidated[2] };
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

/**
 * The last list of one extension: its text as UTF-8 in a buffer of its own, reused by the next
 * list (a string kept for the same purpose is promoted with its line and replaced later,
 * which grew a replay's old generation by a third), and its parsed value.
 */
interface KnownList {
  bytes: Uint8Array;
  length: number;
  tools: unknown;
}

// Web APIs every runtime the core targets has (browsers, Node, Deno, Bun, workers).
declare const TextEncoder: new () => {
  encodeInto(text: string, into: Uint8Array): { read: number; written: number };
};
declare const TextDecoder: new (
  label: string,
  options: { ignoreBOM: boolean },
) => { decode(bytes: Uint8Array): string };
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * `ToolsInvalidated` with `at` and `extension`, key for key as written. A JSON string holds
 * every character from U+0020 on but `"` and `\` as itself (any UTF-16 unit, a lone
 * surrogate included); with only those allowed (escapes go through `JSON.parse`) each
 * capture is the string's value.
 */
const INVALIDATED =
  /^\{"type":"ToolsInvalidated","v":1,"at":"([\x20\x21\x23-\x5b\x5d-\uffff]*)","extension":"([\x20\x21\x23-\x5b\x5d-\uffff]*)"\}$/;
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
function splitAtTools(line: string, cut: number, lists: Map<string, KnownList>): unknown {
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
  if (known !== undefined && sameText(known, text)) tools = known.tools;
  else {
    // The text starts with `[`: an array, or a syntax error.
    tools = JSON.parse(text);
    if (lists.size >= MAX_LISTS) lists.clear();
    remember(lists, event.extension, known, text, tools);
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

/**
 * Whether the list's text is `text`: UTF-8 takes one to three bytes per UTF-16 unit, so most
 * other lengths answer at once; decoding makes a string that dies young.
 */
function sameText(known: KnownList, text: string): boolean {
  if (known.length < text.length || known.length > text.length * 3) return false;
  return decoder.decode(known.bytes.subarray(0, known.length)) === text;
}

/**
 * Keeps `text` as the extension's last list, in the buffer it had when it fits. Text that
 * UTF-8 cannot carry as it is (a lone surrogate) is not kept: it would compare equal to
 * another text.
 */
function remember(
  lists: Map<string, KnownList>,
  extension: string,
  known: KnownList | undefined,
  text: string,
  tools: unknown,
): void {
  let bytes = known?.bytes;
  // Room for ASCII text and some growth; other text is measured by trying.
  if (bytes === undefined || bytes.length < text.length)
    bytes = new Uint8Array(text.length + (text.length >> 3));
  let encoded = encoder.encodeInto(text, bytes);
  if (encoded.read < text.length) {
    bytes = new Uint8Array(text.length * 3);
    encoded = encoder.encodeInto(text, bytes);
  }
  const list: KnownList = { bytes, length: encoded.written, tools };
  if (sameText(list, text)) lists.set(extension, list);
  else lists.delete(extension);
}
