import { listExtensions, type State } from "@toolledger/core";

/** Per registry (its extensions object): whether any tool's server requires a task for it. */
const cache = new WeakMap<object, boolean>();

/**
 * G4: whether the registry holds a tool that says `execution.taskSupport: "required"`. A
 * plain call is checked for one only then, so calls of registries without any pay nothing.
 */
export function hasRequiredTasks(state: State): boolean {
  const known = cache.get(state.extensions);
  if (known !== undefined) return known;
  let found = false;
  for (const ext of listExtensions(state)) {
    for (const tool of ext.tools) {
      const execution = tool.raw.execution as { taskSupport?: unknown } | undefined;
      if (execution?.taskSupport === "required") found = true;
    }
  }
  cache.set(state.extensions, found);
  return found;
}
