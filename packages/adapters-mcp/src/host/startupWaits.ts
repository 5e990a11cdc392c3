import { nameToKey, resolveTool, type State } from "@toolledger/core";
import type { ExtensionSupervisor } from "./extensionSupervisor.js";

/**
 * What a first list waits for: every extension listed, failed (out of attempts, or waiting
 * for its next one: issue 34.2), waiting for its user's authorization or removed, or past
 * its startup grace since it began. Nothing to wait for: resolved at once.
 */
export function untilListed(supervisors: Iterable<ExtensionSupervisor>): Promise<void> {
  const now = performance.now();
  const waits: Promise<void>[] = [];
  for (const s of supervisors) {
    const wait = s.startup.overWithin(s.startupGraceMs, now);
    if (wait) waits.push(wait);
  }
  return waits.length === 0 ? Promise.resolve() : Promise.all(waits).then(() => undefined);
}

/**
 * Waits, at most `ms`, until the extensions that could own `names` (by their prefix, R5, or
 * any unprefixed one) are past their first attempt, or past their startup grace (issue 34.5:
 * a server the first list no longer waits for is not waited for by a call either; the call
 * is then told it has not started). Names that resolve now cost nothing.
 */
export async function untilStartedFor(
  state: State,
  supervisors: Iterable<ExtensionSupervisor>,
  names: readonly string[],
  ms: number,
): Promise<void> {
  const starting = [...supervisors].filter((s) => !s.startup.firstAttemptOver);
  const owners = new Set<ExtensionSupervisor>();
  for (const name of names) {
    if (resolveTool(state, name, { includeHidden: true }).ok) continue;
    const prefix = nameToKey(name.replace(/^functions[.:]/, "").split(/__|\./)[0] ?? "");
    for (const s of starting) if (s.key === prefix || s.config.exposeUnprefixed) owners.add(s);
  }
  const now = performance.now();
  const waits: Promise<void>[] = [];
  for (const s of owners) {
    const wait = s.startup.overWithin(s.startupGraceMs, now);
    if (wait) waits.push(wait);
  }
  if (waits.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(waits),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
