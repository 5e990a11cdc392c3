import {
  type Command,
  getExtension,
  type McpPrompt,
  type McpResource,
  type McpResourceTemplate,
  type State,
} from "@toolledger/core";
import { asAdapterError } from "../../adapterError.js";
import type { ExtensionConnection } from "../../connection/extensionConnection.js";
import { fetchPrompts, fetchResources } from "../../connection/fetchCatalog.js";
import type { StreamWriter } from "../../ledger/streamWriter.js";
import { withinCap } from "./oversizedDefinitions.js";

/** G1: an extension's lists other than its tools. */
export type CatalogList = "prompts" | "resources";

export interface CatalogLimits {
  requestTimeoutMs: number;
  maxPages: number;
  /** V3: the largest definition recorded (JSON bytes); a larger one is reported instead. */
  maxDefinitionBytes: number;
}

/** The list's own version (bumped by each of its invalidations). */
export function catalogListVersion(state: State, key: string, list: CatalogList): number {
  const catalog = getExtension(state, key)?.catalog;
  return (list === "prompts" ? catalog?.promptsList.version : catalog?.resourcesList.version) ?? 0;
}

/** G1: the lists the extension's server declared. */
export function declaredLists(connection: ExtensionConnection): CatalogList[] {
  const caps = connection.capabilities;
  const lists: CatalogList[] = [];
  if (caps.prompts) lists.push("prompts");
  if (caps.resources) lists.push("resources");
  return lists;
}

/**
 * G1: fetches one of an extension's lists and records it (PromptsFetched or
 * ResourcesFetched, a failure as the event's `error`), again until a fetch is not overtaken
 * by a list change, so the recorded list is the server's latest. Stops when `current()`
 * says the connection was replaced or dropped.
 */
export async function recordCatalogList(
  writer: StreamWriter,
  connection: ExtensionConnection,
  key: string,
  list: CatalogList,
  limits: CatalogLimits,
  current: () => boolean,
  /** P2: decides the listing against the pins ledger before it is recorded. */
  beforeRecord?: (command: Command) => Promise<void>,
): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const startedAtVersion = catalogListVersion(writer.state, key, list);
    let command: Command;
    try {
      command =
        list === "prompts"
          ? promptsCommand(key, startedAtVersion, await fetchPrompts(connection, limits), limits)
          : resourcesCommand(
              key,
              startedAtVersion,
              await fetchResources(connection, limits),
              limits,
            );
    } catch (error) {
      const e = asAdapterError(error);
      if (e.code === "SESSION_CLOSED" || connection.closed) return;
      command = emptyList(key, list, startedAtVersion, e.message);
    }
    if (!current()) return;
    await beforeRecord?.(command);
    await writer.execute(() => command);
    if (catalogListVersion(writer.state, key, list) === startedAtVersion) return;
  }
}

/** G1/V3: a prompts listing as recorded: a prompt over the cap is reported instead. */
function promptsCommand(
  key: string,
  startedAtVersion: number,
  prompts: McpPrompt[],
  limits: CatalogLimits,
): Command {
  const { kept, oversized } = withinCap(prompts, limits.maxDefinitionBytes, (p) => p.name);
  return {
    type: "RecordPrompts",
    extension: key,
    startedAtVersion,
    prompts: kept,
    ...(oversized.length > 0 ? { oversized } : {}),
  };
}

/** G1/V3: a resources listing as recorded: a resource or template over the cap is reported instead. */
function resourcesCommand(
  key: string,
  startedAtVersion: number,
  listed: { resources: McpResource[]; resourceTemplates: McpResourceTemplate[] },
  limits: CatalogLimits,
): Command {
  const cap = limits.maxDefinitionBytes;
  const resources = withinCap(listed.resources, cap, (r) => r.uri, "resource");
  const templates = withinCap(
    listed.resourceTemplates,
    cap,
    (t) => t.uriTemplate,
    "resource_template",
  );
  const oversized = [...resources.oversized, ...templates.oversized];
  return {
    type: "RecordResources",
    extension: key,
    startedAtVersion,
    resources: resources.kept,
    resourceTemplates: templates.kept,
    ...(oversized.length > 0 ? { oversized } : {}),
  };
}

/** G1: a lost server's prompts and resources leave the lists with its tools. */
export function recordCatalogLoss(
  writer: StreamWriter,
  key: string,
  error: string,
): Promise<unknown>[] {
  const catalog = getExtension(writer.state, key)?.catalog;
  const lost: CatalogList[] = [];
  if (catalog?.promptsList.status === "ok") lost.push("prompts");
  if (catalog?.resourcesList.status === "ok") lost.push("resources");
  return lost.map((list) =>
    writer.execute((state) => emptyList(key, list, catalogListVersion(state, key, list), error)),
  );
}

/** G1: the list command that empties a list and says why. */
function emptyList(
  key: string,
  list: CatalogList,
  startedAtVersion: number,
  error: string,
): Command {
  return list === "prompts"
    ? { type: "RecordPrompts", extension: key, startedAtVersion, prompts: [], error }
    : {
        type: "RecordResources",
        extension: key,
        startedAtVersion,
        resources: [],
        resourceTemplates: [],
        error,
      };
}
