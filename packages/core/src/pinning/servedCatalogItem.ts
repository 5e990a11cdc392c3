import type { McpPrompt, McpResource, McpResourceTemplate } from "../events/events.js";
import { setOwn } from "../fold/records.js";
import type { RegisteredPrompt, State } from "../fold/state.js";
import {
  definitionDigest,
  instructionsDefinition,
  promptDefinition,
  resourceDefinition,
  templateDefinition,
} from "./pinnedDefinition.js";
import { type PinStatus, pinVerdict } from "./pinVerdict.js";

/** P2: a prompt, resource or template the gateway does not serve as listed. */
export interface QuarantinedItem {
  kind: "prompt" | "resource" | "resource_template";
  owner: string;
  /** The prompt's public name, the resource's URI, the template's URI template. */
  name: string;
  status: Exclude<PinStatus, "approved" | "unpinned">;
  /** True when its approved definition is served in its place (changed). */
  servedAsApproved: boolean;
}

type Served<T> = { served: T | null; quarantined: QuarantinedItem | null };

const PINNED_RESOURCE_FIELDS = ["uri", "uriTemplate", "name", "title", "description"];

/** P2 for a registered prompt: as listed, as approved (changed), or not at all. */
export function servedPrompt(state: State, p: RegisteredPrompt): Served<RegisteredPrompt> {
  const verdict = pinVerdict(state, p.owner, "prompt", p.rawName, () =>
    definitionDigest({ ...promptDefinition(p.prompt), name: p.rawName }),
  );
  if (!verdict.enforced || verdict.status === "approved" || verdict.status === "unpinned")
    return { served: p, quarantined: null };
  const approved = verdict.status === "changed" ? verdict.record?.approved : undefined;
  const quarantined: QuarantinedItem = {
    kind: "prompt",
    owner: p.owner,
    name: p.publicName,
    status: verdict.status,
    servedAsApproved: approved !== undefined,
  };
  if (!approved) return { served: null, quarantined };
  const prompt: McpPrompt = { ...(approved.definition as McpPrompt), name: p.publicName };
  const meta: Record<string, unknown> = {};
  setOwn(meta, state.ownerMetaKey, p.owner);
  prompt._meta = meta;
  return { served: { ...p, prompt }, quarantined };
}

/** P2 for a listed resource (its URI, name, title and description are pinned). */
export function servedResource(state: State, owner: string, r: McpResource): Served<McpResource> {
  return servedText(state, owner, "resource", r.uri, r, () =>
    definitionDigest(resourceDefinition(r)),
  );
}

/** P2 for a listed resource template. */
export function servedTemplate(
  state: State,
  owner: string,
  t: McpResourceTemplate,
): Served<McpResourceTemplate> {
  return servedText(state, owner, "resource_template", t.uriTemplate, t, () =>
    definitionDigest(templateDefinition(t)),
  );
}

function servedText<T extends Record<string, unknown>>(
  state: State,
  owner: string,
  kind: "resource" | "resource_template",
  name: string,
  item: T,
  digest: () => string,
): Served<T> {
  const verdict = pinVerdict(state, owner, kind, name, digest);
  if (!verdict.enforced || verdict.status === "approved" || verdict.status === "unpinned")
    return { served: item, quarantined: null };
  const approved = verdict.status === "changed" ? verdict.record?.approved : undefined;
  const quarantined: QuarantinedItem = {
    kind,
    owner,
    name,
    status: verdict.status,
    servedAsApproved: approved !== undefined,
  };
  if (!approved) return { served: null, quarantined };
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) if (!PINNED_RESOURCE_FIELDS.includes(k)) rest[k] = v;
  return { served: { ...rest, ...(approved.definition as object) } as T, quarantined };
}

/**
 * P2 for a server's `instructions`: as given when approved (or not pinned), the approved
 * text while a changed one awaits approval, nothing while new text is pending or rejected.
 */
export function servedInstructions(
  state: State,
  owner: string,
  text: string | undefined,
): string | undefined {
  if (text === undefined || text.trim() === "") return text;
  const verdict = pinVerdict(state, owner, "instructions", "", () =>
    definitionDigest(instructionsDefinition(text)),
  );
  if (!verdict.enforced || verdict.status === "approved" || verdict.status === "unpinned")
    return text;
  const approved = verdict.status === "changed" ? verdict.record?.approved : undefined;
  const instructions = (approved?.definition as { instructions?: unknown } | undefined)
    ?.instructions;
  return typeof instructions === "string" ? instructions : undefined;
}
