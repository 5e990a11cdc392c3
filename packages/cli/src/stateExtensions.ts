import {
  compareBytes,
  getExtension as coreGetExtension,
  type ExtensionState,
  listExtensions,
  type RegisteredTool,
  type State,
} from "@toolledger/core";

/** Every extension key, sorted. */
export function extensionKeys(state: State): string[] {
  return listExtensions(state).map((e) => e.key);
}

/** The extension with exactly this key (no R1 normalisation: keys come from the state). */
export function getExtension(state: State, key: string): ExtensionState | undefined {
  const ext = coreGetExtension(state, key);
  return ext?.key === key ? ext : undefined;
}

// The core's per-extension tool collection has been a record and a sorted array; read it
// here only, whichever it is.
type ToolCollection = readonly RegisteredTool[] | Readonly<Record<string, RegisteredTool>>;

/** An extension's registered tools (collision losers included), sorted by public name. */
export function toolsOf(ext: ExtensionState): RegisteredTool[] {
  const tools = ext.tools as unknown as ToolCollection;
  if (Array.isArray(tools)) return [...(tools as readonly RegisteredTool[])];
  const record = tools as Readonly<Record<string, RegisteredTool>>;
  return Object.keys(record)
    .sort(compareBytes)
    .map((k) => record[k]!);
}

export function toolOf(ext: ExtensionState, publicName: string): RegisteredTool | undefined {
  const tools = ext.tools as unknown as ToolCollection;
  if (Array.isArray(tools))
    return (tools as readonly RegisteredTool[]).find((t) => t.publicName === publicName);
  const record = tools as Readonly<Record<string, RegisteredTool>>;
  return Object.hasOwn(record, publicName) ? record[publicName] : undefined;
}
