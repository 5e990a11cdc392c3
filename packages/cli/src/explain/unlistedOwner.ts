import { getExtension, nameToKey, type State } from "@toolledger/core";

/**
 * The extension a tool name would belong to (its prefix, R5) when that extension is in the
 * registry without tools because it was never listed or its listing failed (a server that
 * did not start, or was still starting when the host stopped): what explains an unknown name.
 */
export function unlistedOwner(
  state: State,
  publicName: string,
): { key: string; text: string } | null {
  const separator = publicName.indexOf("__");
  if (separator <= 0) return null;
  const key = nameToKey(publicName.slice(0, separator));
  const ext = getExtension(state, key);
  if (!ext || ext.tools.length > 0) return null;
  if (ext.fetch.status === "failed")
    return {
      key,
      text: `its extension ${key} has no tools: ${ext.fetch.error ?? "its listing failed"}`,
    };
  if (ext.fetch.status === "never")
    return {
      key,
      text: `its extension ${key} was never listed (its server had not answered tools/list)`,
    };
  return null;
}
