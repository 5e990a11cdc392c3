import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/server";

/**
 * Lists whose JSON is already known (the gateway's served tool list, serialised once per
 * view), so no response re-serialises them: a 480-tool list is ~300 KB of JSON, and
 * stringifying it again for every tools/list was most of the gateway's own work per list
 * (bench 5b).
 */
const knownJsonOf = new WeakMap<object, string>();
/** Per remembered list, the UTF-8 bytes of a response line up to its id (see `knownListLine`). */
const lineHeads = new WeakMap<object, Buffer>();

/** Registers `json` as the serialisation of `list` (it must be exactly `JSON.stringify(list)`). */
export function rememberJson(list: object, json: string): void {
  knownJsonOf.set(list, json);
}

/** The JSON registered for `list` with `rememberJson`, if any. */
export function knownJson(list: object): string | undefined {
  return knownJsonOf.get(list);
}

/** A response whose result is exactly one remembered list (`{ tools }`, a tools/list served whole). */
function rememberedList(
  message: JSONRPCMessage,
): { list: object; json: string; id: RequestId } | undefined {
  const result = (message as { result?: Record<string, unknown> }).result;
  if (!result || typeof result.tools !== "object" || result.tools === null) return undefined;
  const json = knownJsonOf.get(result.tools);
  if (json === undefined || Object.keys(result).length !== 1) return undefined;
  return { list: result.tools, json, id: (message as { id: RequestId }).id };
}

/** What comes before a response's id, `rememberedList`'s JSON inside. */
const head = (json: string) => `{"result":{"tools":${json}},"jsonrpc":"2.0","id":`;

/**
 * `JSON.stringify(message)`, reusing the known JSON of a result that is exactly one
 * remembered list; any other message is stringified.
 */
export function serializeMessage(message: JSONRPCMessage): string {
  const known = rememberedList(message);
  if (known === undefined) return JSON.stringify(message);
  return `${head(known.json)}${JSON.stringify(known.id)}}`;
}

/**
 * A response whose result is exactly one remembered list, as its line (newline included)
 * in two parts: the bytes before its id, encoded once per list and reused for every
 * response that serves it, and the id with the rest. Encoding ~300 KB of JSON to UTF-8 on
 * every write was most of what a served list still cost the gateway (bench 5b). `undefined`
 * for any other message (`serializeMessage` it).
 */
export function knownListLine(message: JSONRPCMessage): [head: Buffer, tail: string] | undefined {
  const known = rememberedList(message);
  if (known === undefined) return undefined;
  let bytes = lineHeads.get(known.list);
  if (bytes === undefined) {
    bytes = Buffer.from(head(known.json), "utf8");
    lineHeads.set(known.list, bytes);
  }
  return [bytes, `${JSON.stringify(known.id)}}\n`];
}
