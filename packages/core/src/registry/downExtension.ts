import { hget } from "../fold/hashDict.js";
import type { ExtensionState, State } from "../fold/state.js";
import type { ResolveOptions } from "../naming/resolveTool.js";

/**
 * The extension a tool name belongs to when that extension is down: its latest fetch failed
 * (a crash, a hang, a failed start), so its tools left the registry, or none of its tools
 * has been listed yet (its server has not started: issue 34.5). The owner is read from
 * the name as R5 reads it (the text before a `__`, any of them, since keys may hold `__`),
 * also in R13's mangled forms (`functions.` prefix, `.` for the first `__`). Hidden
 * extensions only with `includeHidden` (R8). Null when the name belongs to no such extension.
 */
export function downExtension(
  state: State,
  name: string,
  options: ResolveOptions = {},
): ExtensionState | null {
  let s = name.trim();
  if (s.startsWith("functions.") || s.startsWith("functions:")) s = s.slice("functions.".length);
  const candidates = new Set<string>();
  for (const text of [name, s]) {
    for (let i = text.indexOf("__"); i > 0; i = text.indexOf("__", i + 1))
      candidates.add(text.slice(0, i));
  }
  for (let i = s.indexOf("."); i > 0; i = s.indexOf(".", i + 1)) candidates.add(s.slice(0, i));
  for (const key of candidates) {
    const ext = hget(state.extensions, key);
    if (ext?.fetch.status !== "failed" && ext?.fetch.status !== "never") continue;
    if (ext.hidden && !options.includeHidden) continue;
    return ext;
  }
  return null;
}
