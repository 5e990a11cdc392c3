import {
  getExtension as coreGetExtension,
  type ExtensionState,
  listExtensions,
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
