import type { McpResource, McpResourceTemplate } from "../events/events.js";
import { hvalues } from "../fold/hashDict.js";
import type { ExtensionState, RegisteredPrompt, State } from "../fold/state.js";
import { closeNames } from "../naming/closeNames.js";
import {
  type QuarantinedItem,
  servedPrompt,
  servedResource,
  servedTemplate,
} from "../pinning/servedCatalogItem.js";
import { EMPTY_CATALOG } from "./evolveCatalog.js";

/** What one registry offers besides tools (G1), in R10 order, conflicts resolved. */
export interface Catalog {
  /** Winning prompts: visible extensions before hidden ones, then by key, then server order. */
  prompts: readonly RegisteredPrompt[];
  /** Resources with their URIs as sent; a URI two extensions list goes to the first (R10 order). */
  resources: readonly OwnedResource[];
  resourceTemplates: readonly OwnedResourceTemplate[];
  /** Prompt names and resource URIs more than one extension offers: owners, first wins. */
  conflicts: readonly CatalogConflict[];
  /** P2: items whose listed definition is not approved (served as approved, or not at all). */
  quarantined: readonly QuarantinedItem[];
}

export interface OwnedResource {
  owner: string;
  resource: McpResource;
}

export interface OwnedResourceTemplate {
  owner: string;
  template: McpResourceTemplate;
  /** The template as a matcher (RFC 6570 expressions as wildcards). */
  pattern: RegExp;
}

export interface CatalogConflict {
  kind: "prompt" | "resource" | "resource_template";
  /** The public prompt name, the URI or the URI template. */
  name: string;
  owners: readonly string[];
}

export interface CatalogOptions {
  /** R8: include hidden extensions (host-internal use only). */
  includeHidden?: boolean;
}

export type PromptResolution =
  | { ok: true; publicName: string; owner: string; rawName: string }
  | {
      ok: false;
      code: "UNKNOWN_PROMPT" | "PROMPT_AWAITS_APPROVAL";
      message: string;
      suggestions: string[];
    };

const cache = new WeakMap<object, WeakMap<object, { visible?: Catalog; all?: Catalog }>>();

/**
 * G1: the registry's prompts, resources and templates as the gateway serves them. Memoised
 * per registry (the extensions map is immutable), so serving a list costs a lookup.
 */
export function catalog(state: State, options: CatalogOptions = {}): Catalog {
  const includeHidden = options.includeHidden ?? false;
  let byPins = cache.get(state.extensions);
  if (!byPins) {
    byPins = new WeakMap();
    cache.set(state.extensions, byPins);
  }
  let entry = byPins.get(state.pinning);
  if (!entry) {
    entry = {};
    byPins.set(state.pinning, entry);
  }
  const slot = includeHidden ? "all" : "visible";
  const cached = entry[slot];
  if (cached) return cached;
  const built = buildCatalog(state, includeHidden);
  entry[slot] = built;
  return built;
}

/** R13 for prompts: an exact public name, or a refusal that lists close names. */
export function resolvePrompt(
  state: State,
  name: string,
  options: CatalogOptions = {},
): PromptResolution {
  const c = catalog(state, options);
  const prompts = c.prompts;
  // P2: a prompt whose definition changed or is new is not run until a person approves it.
  const awaiting = c.quarantined.find((q) => q.kind === "prompt" && q.name === name);
  if (awaiting) {
    return {
      ok: false,
      code: "PROMPT_AWAITS_APPROVAL",
      message: `prompt ${JSON.stringify(name)} ${awaiting.status === "rejected" ? "was rejected by the user" : "awaits the user's approval (its definition changed or is new)"}; review it with \`toolledger pins ${awaiting.owner}\``,
      suggestions: [],
    };
  }
  const found = prompts.find((p) => p.publicName === name);
  if (found) return { ok: true, publicName: name, owner: found.owner, rawName: found.rawName };
  const suggestions = closeNames(
    name,
    prompts.map((p) => p.publicName),
  );
  return {
    ok: false,
    code: "UNKNOWN_PROMPT",
    message: `unknown prompt ${JSON.stringify(name)}${suggestions.length > 0 ? `; close names: ${suggestions.join(", ")}` : "; prompts/list shows the available prompts"}`,
    suggestions,
  };
}

/**
 * G1: the extension that serves `uri`: the first (R10 order) that lists it, else the first
 * whose resource template matches it; undefined when none does.
 */
export function resourceOwner(
  state: State,
  uri: string,
  options: CatalogOptions = {},
): string | undefined {
  const c = catalog(state, options);
  const listed = c.resources.find((r) => r.resource.uri === uri);
  if (listed) return listed.owner;
  return c.resourceTemplates.find((t) => t.pattern.test(uri))?.owner;
}

/** Extensions in R10 order: visible before hidden, then by key. */
function orderedExtensions(state: State, includeHidden: boolean): ExtensionState[] {
  return hvalues(state.extensions)
    .filter((e) => includeHidden || !e.hidden)
    .sort((a, b) =>
      a.hidden !== b.hidden ? (a.hidden ? 1 : -1) : a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
    );
}

function buildCatalog(state: State, includeHidden: boolean): Catalog {
  const prompts: RegisteredPrompt[] = [];
  const resources: OwnedResource[] = [];
  const resourceTemplates: OwnedResourceTemplate[] = [];
  const quarantined: QuarantinedItem[] = [];
  const owners = new Map<
    string,
    { kind: CatalogConflict["kind"]; name: string; owners: string[] }
  >();
  const claim = (kind: CatalogConflict["kind"], name: string, owner: string): boolean => {
    const id = `${kind}\u0000${name}`;
    const entry = owners.get(id);
    if (!entry) {
      owners.set(id, { kind, name, owners: [owner] });
      return true;
    }
    if (!entry.owners.includes(owner)) entry.owners.push(owner);
    return false;
  };
  for (const ext of orderedExtensions(state, includeHidden)) {
    const c = ext.catalog ?? EMPTY_CATALOG;
    for (const listed of c.prompts) {
      const { served: p, quarantined: q } = servedPrompt(state, listed);
      if (q) quarantined.push(q);
      if (p && claim("prompt", p.publicName, ext.key)) prompts.push(p);
    }
    for (const listed of c.resources) {
      const { served: r, quarantined: q } = servedResource(state, ext.key, listed);
      if (q) quarantined.push(q);
      if (r && claim("resource", r.uri, ext.key)) resources.push({ owner: ext.key, resource: r });
    }
    for (const listed of c.resourceTemplates) {
      const { served: t, quarantined: q } = servedTemplate(state, ext.key, listed);
      if (q) quarantined.push(q);
      if (t && claim("resource_template", t.uriTemplate, ext.key))
        resourceTemplates.push({
          owner: ext.key,
          template: t,
          pattern: templatePattern(t.uriTemplate),
        });
    }
  }
  const conflicts: CatalogConflict[] = [];
  for (const entry of owners.values()) if (entry.owners.length > 1) conflicts.push(entry);
  return { prompts, resources, resourceTemplates, conflicts, quarantined };
}

/**
 * An RFC 6570 template as a regular expression: literals match themselves, `{var}` one path
 * segment, `{+var}`/`{#var}` anything, `{/var}` path segments, `{?var}`/`{&var}` a query.
 */
export function templatePattern(template: string): RegExp {
  let source = "";
  let last = 0;
  for (const m of template.matchAll(/\{([+#./;?&]?)[^}]*\}/g)) {
    source += escapeRegExp(template.slice(last, m.index));
    const op = m[1];
    if (op === "+" || op === "#") source += ".*";
    else if (op === "/") source += "(?:/[^/?#]*)*";
    else if (op === "?" || op === "&") source += "(?:[?&][^#]*)?";
    else if (op === ".") source += "(?:\\.[^/?#.]*)*";
    else if (op === ";") source += "(?:;[^/?#]*)*";
    else source += "[^/?#]*";
    last = m.index + m[0].length;
  }
  source += escapeRegExp(template.slice(last));
  return new RegExp(`^${source}$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
