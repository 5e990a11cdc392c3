import { findTool, type State } from "@toolledger/core";
import { getExtension } from "../session/stateExtensions.js";
import type { Change } from "./change.js";

/**
 * Tools an extension gained that it had before under another public name (it was re-added
 * with `exposeUnprefixed` toggled) read as renames; `known` keeps each extension's last names.
 */
export function withRenames(
  changes: Change[],
  after: State,
  known: Map<string, Map<string, string>>,
): Change[] {
  const out: Change[] = [];
  for (const c of changes) {
    if (c.kind !== "tools_added") {
      out.push(c);
      continue;
    }
    const ext = getExtension(after, c.extension);
    const names = known.get(c.extension) ?? new Map<string, string>();
    const added: string[] = [];
    for (const name of c.names) {
      const raw = ext ? findTool(ext, name)?.rawName : undefined;
      const old = raw === undefined ? undefined : names.get(raw);
      if (raw !== undefined && old !== undefined && old !== name) {
        out.push({
          kind: "tool_renamed",
          extension: c.extension,
          rawName: raw,
          from: old,
          to: name,
        });
      } else {
        added.push(name);
      }
    }
    if (added.length > 0) out.push({ ...c, names: added });
  }
  for (const c of out) {
    if (c.kind !== "tools_added" && c.kind !== "tool_renamed") continue;
    const ext = getExtension(after, c.extension);
    if (!ext) continue;
    const names = new Map<string, string>();
    for (const t of ext.tools) names.set(t.rawName, t.publicName);
    known.set(c.extension, names);
  }
  return out;
}
