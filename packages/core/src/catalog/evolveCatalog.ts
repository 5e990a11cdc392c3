import type {
  McpPrompt,
  OversizedDefinition,
  PromptsFetched,
  PromptsInvalidated,
  ResourcesFetched,
  ResourcesInvalidated,
} from "../events/events.js";
import { hget, hset } from "../fold/hashDict.js";
import { ignore } from "../fold/ignore.js";
import type {
  ExtensionCatalog,
  ExtensionState,
  ListStatus,
  RegisteredPrompt,
  State,
} from "../fold/state.js";
import { update } from "../fold/update.js";
import { nameToKey } from "../naming/nameToKey.js";

const NEVER: ListStatus = Object.freeze({
  version: 0,
  fetchedVersion: null,
  status: "never",
  error: null,
  staleFetches: 0,
});

export const EMPTY_CATALOG: ExtensionCatalog = Object.freeze({
  prompts: [],
  promptsList: NEVER,
  resources: [],
  resourceTemplates: [],
  resourcesList: NEVER,
});

/**
 * G1: folds one prompt/resource list event into an extension. Each list has its own version:
 * an invalidation bumps it, and a fetch that started at an older version is stale and only
 * counted (the R11 rule, per list, so a prompt change never makes tools stale).
 */
export function evolveCatalog(
  ext: ExtensionState,
  e: PromptsInvalidated | PromptsFetched | ResourcesInvalidated | ResourcesFetched,
  ownerMetaKey: string,
): ExtensionState {
  const catalog = ext.catalog ?? EMPTY_CATALOG;
  switch (e.type) {
    case "PromptsInvalidated":
      return withCatalog(ext, { ...catalog, promptsList: invalidated(catalog.promptsList) });
    case "ResourcesInvalidated":
      return withCatalog(ext, { ...catalog, resourcesList: invalidated(catalog.resourcesList) });
    case "PromptsFetched": {
      const list = catalog.promptsList;
      if (e.startedAtVersion !== list.version)
        return withCatalog(ext, { ...catalog, promptsList: stale(list) });
      return withCatalog(ext, {
        ...catalog,
        prompts: e.error === undefined ? registerPrompts(ext, e.prompts, ownerMetaKey) : [],
        promptsList: fetched(list, e.startedAtVersion, e.error, e.oversized),
      });
    }
    case "ResourcesFetched": {
      const list = catalog.resourcesList;
      if (e.startedAtVersion !== list.version)
        return withCatalog(ext, { ...catalog, resourcesList: stale(list) });
      const ok = e.error === undefined;
      return withCatalog(ext, {
        ...catalog,
        resources: ok ? e.resources : [],
        resourceTemplates: ok ? e.resourceTemplates : [],
        resourcesList: fetched(list, e.startedAtVersion, e.error, e.oversized),
      });
    }
  }
}

function withCatalog(ext: ExtensionState, catalog: ExtensionCatalog): ExtensionState {
  return { ...ext, catalog };
}

function invalidated(list: ListStatus): ListStatus {
  return { ...list, version: list.version + 1 };
}

function stale(list: ListStatus): ListStatus {
  return { ...list, staleFetches: list.staleFetches + 1 };
}

function fetched(
  list: ListStatus,
  version: number,
  error: string | undefined,
  oversized: readonly OversizedDefinition[] | undefined,
): ListStatus {
  const next: ListStatus = {
    version: list.version,
    fetchedVersion: version,
    status: error === undefined ? "ok" : "failed",
    error: error ?? null,
    staleFetches: list.staleFetches,
  };
  // V3: what was listed over the host's cap, until the next fetch of the list.
  if (oversized !== undefined && oversized.length > 0) next.oversized = oversized;
  return next;
}

/** R3/R4 for prompts: `<key>__<name>` unless unprefixed; owner metadata overwritten; first of a repeated name kept. */
function registerPrompts(
  ext: ExtensionState,
  prompts: readonly McpPrompt[],
  ownerMetaKey: string,
): RegisteredPrompt[] {
  const out: RegisteredPrompt[] = [];
  const seen = new Set<string>();
  for (const raw of prompts) {
    const publicName = ext.exposeUnprefixed ? raw.name : `${ext.key}__${raw.name}`;
    if (seen.has(publicName)) continue;
    seen.add(publicName);
    const prompt: McpPrompt = { ...raw };
    prompt.name = publicName;
    prompt._meta = { ...raw._meta, [ownerMetaKey]: ext.key };
    out.push({ publicName, rawName: raw.name, owner: ext.key, prompt });
  }
  return out;
}

/** G1: an extension's prompt or resource list; never touches tools or the cache version. */
export function catalogChanged(
  state: State,
  e: PromptsInvalidated | PromptsFetched | ResourcesInvalidated | ResourcesFetched,
): State {
  const key = nameToKey(e.extension);
  const ext = hget(state.extensions, key);
  if (!ext) return ignore(state, e.type, `no extension ${JSON.stringify(key)}`);
  const next = evolveCatalog(ext, e, state.ownerMetaKey);
  return next === ext ? state : update(state, { extensions: hset(state.extensions, key, next) });
}
