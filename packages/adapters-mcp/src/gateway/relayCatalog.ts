import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import {
  catalog,
  getExtension,
  type McpPrompt,
  type McpResource,
  type McpResourceTemplate,
  resolvePrompt,
  resourceOwner,
  type State,
} from "@toolledger/core";
import { distinctUntilChanged, map, type Subscription, skip } from "rxjs";
import type { Peer } from "./downstreamPeer.js";
import type { GatewayHub } from "./gatewayHub.js";
import { ProtocolError } from "./protocolError.js";
import { DEFAULT_LIST_PAGE_BYTES, type ServedPage, servedPage } from "./servedPages.js";

/**
 * MCP's "resource not found" (specification: server/resources, error handling): SDK 2 sends
 * its old code -32002 as InvalidParams (-32602) on every wire, so the gateway says that.
 */
const RESOURCE_NOT_FOUND = ProtocolErrorCode.InvalidParams;

/**
 * G1: prompts (named like tools, R3), resources (URIs kept; the first server in R10 order
 * serves a URI two offer), templates, subscriptions and completions, served from the
 * registry's recorded lists and relayed to the owning server. A change of a served list
 * sends its `list_changed`. Returns the function that stops that.
 */
export function relayCatalog(
  hub: GatewayHub,
  peer: Peer,
  pageBytes: number = DEFAULT_LIST_PAGE_BYTES,
): () => void {
  const { server } = peer;
  const state = () => hub.host.state;
  // Issue 34.3: a first list waits for the servers still starting, as a first tools/list
  // does; V3: in pages a client can read.
  server.setRequestHandler("prompts/list", async (request) => {
    await hub.host.untilListed();
    const page = servedPage(
      "prompts",
      servedPrompts(state()),
      (p) => p.name,
      request.params?.cursor,
      pageBytes,
    );
    return { prompts: page.items as never[], ...next(page) };
  });
  server.setRequestHandler("prompts/get", async (request, ctx) => {
    const resolved = resolvePrompt(state(), request.params.name);
    if (!resolved.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, resolved.message);
    return (await hub.forward(
      peer,
      resolved.owner,
      "prompts/get",
      { ...request.params, name: resolved.rawName },
      ctx,
    )) as never;
  });
  server.setRequestHandler("resources/list", async (request) => {
    await hub.host.untilListed();
    const page = servedPage(
      "resources",
      servedResources(state()),
      (r) => r.uri,
      request.params?.cursor,
      pageBytes,
    );
    return { resources: page.items as never[], ...next(page) };
  });
  server.setRequestHandler("resources/templates/list", async (request) => {
    await hub.host.untilListed();
    const page = servedPage(
      "resourceTemplates",
      servedTemplates(state()),
      (t) => t.uriTemplate,
      request.params?.cursor,
      pageBytes,
    );
    return { resourceTemplates: page.items as never[], ...next(page) };
  });
  server.setRequestHandler("resources/read", async (request, ctx) => {
    const owner = ownerOf(hub, state(), request.params.uri);
    return (await hub.forward(peer, owner, "resources/read", request.params, ctx)) as never;
  });
  server.setRequestHandler("resources/subscribe", async (request, ctx) =>
    hub.subscriptions.subscribe(
      peer,
      ownerOf(hub, state(), request.params.uri),
      request.params.uri,
      ctx,
    ),
  );
  server.setRequestHandler("resources/unsubscribe", async (request, ctx) =>
    hub.subscriptions.unsubscribe(
      peer,
      ownerOf(hub, state(), request.params.uri),
      request.params.uri,
      ctx,
    ),
  );
  server.setRequestHandler("completion/complete", async (request, ctx) => {
    const { ref } = request.params;
    if (ref.type === "ref/prompt") {
      const resolved = resolvePrompt(state(), ref.name);
      if (!resolved.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, resolved.message);
      const params = { ...request.params, ref: { ...ref, name: resolved.rawName } };
      return (await hub.forward(peer, resolved.owner, "completion/complete", params, ctx)) as never;
    }
    const template = catalog(state()).resourceTemplates.find(
      (t) => t.template.uriTemplate === ref.uri,
    );
    const owner = template?.owner ?? ownerOf(hub, state(), ref.uri);
    return (await hub.forward(peer, owner, "completion/complete", request.params, ctx)) as never;
  });

  const watch = (signature: (s: State) => string, send: () => Promise<void>): Subscription =>
    hub.host.state$.pipe(map(signature), distinctUntilChanged(), skip(1)).subscribe(() => {
      if (server.transport) send().catch((error: unknown) => hub.report(error));
    });
  const subscriptions = [
    watch(
      (s) => JSON.stringify(catalog(s).prompts.map((p) => p.prompt)),
      () => server.sendPromptListChanged(),
    ),
    watch(
      (s) => {
        const c = catalog(s);
        return JSON.stringify([
          c.resources.map((r) => r.resource),
          c.resourceTemplates.map((t) => t.template),
        ]);
      },
      () => server.sendResourceListChanged(),
    ),
  ];
  return () => {
    for (const s of subscriptions) s.unsubscribe();
  };
}

/** A page's `nextCursor`, when there is a next page. */
function next(page: ServedPage<unknown>): { nextCursor?: string } {
  return page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor };
}

/** The served lists, one array per catalog (memoised per registry), so pages measure it once. */
const served = new WeakMap<object, unknown[]>();

function memo<T, U>(list: readonly T[], item: (t: T) => U): U[] {
  let out = served.get(list) as U[] | undefined;
  if (out === undefined) {
    out = list.map(item);
    served.set(list, out);
  }
  return out;
}

const servedPrompts = (s: State): McpPrompt[] => memo(catalog(s).prompts, (p) => p.prompt);
const servedResources = (s: State): McpResource[] => memo(catalog(s).resources, (r) => r.resource);
const servedTemplates = (s: State): McpResourceTemplate[] =>
  memo(catalog(s).resourceTemplates, (t) => t.template);

/**
 * The extension that serves a URI: the one whose recorded list or template has it, else the
 * only connected server that offers resources (a server may serve URIs it does not list).
 */
function ownerOf(hub: GatewayHub, state: State, uri: string): string {
  const owner = resourceOwner(state, uri);
  if (owner !== undefined) return owner;
  const offering = hub.host
    .extensions()
    .filter(
      (e) =>
        getExtension(state, e.key)?.hidden === false &&
        hub.host.connection(e.key)?.capabilities.resources,
    );
  if (offering.length === 1) return offering[0]!.key;
  throw new ProtocolError(
    RESOURCE_NOT_FOUND,
    `Resource not found: ${uri} (no server lists it or a template that matches it; resources/list and resources/templates/list show what is offered)`,
    { uri },
  );
}
