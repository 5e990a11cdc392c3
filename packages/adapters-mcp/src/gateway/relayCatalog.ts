import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { catalog, getExtension, resolvePrompt, resourceOwner, type State } from "@toolledger/core";
import { distinctUntilChanged, map, type Subscription, skip } from "rxjs";
import type { Peer } from "./downstreamPeer.js";
import type { GatewayHub } from "./gatewayHub.js";
import { ProtocolError } from "./protocolError.js";

/** MCP's "resource not found" (specification: server/resources, error handling). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * G1: prompts (named like tools, R3), resources (URIs kept; the first server in R10 order
 * serves a URI two offer), templates, subscriptions and completions, served from the
 * registry's recorded lists and relayed to the owning server. A change of a served list
 * sends its `list_changed`. Returns the function that stops that.
 */
export function relayCatalog(hub: GatewayHub, peer: Peer): () => void {
  const { server } = peer;
  const state = () => hub.host.state;
  // Issue 34.3: a first list waits for the servers still starting, as a first tools/list does.
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    await hub.host.untilListed();
    return { prompts: catalog(state()).prompts.map((p) => p.prompt) as never[] };
  });
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const resolved = resolvePrompt(state(), request.params.name);
    if (!resolved.ok) throw new ProtocolError(ErrorCode.InvalidParams, resolved.message);
    return (await hub.forward(
      peer,
      resolved.owner,
      "prompts/get",
      { ...request.params, name: resolved.rawName },
      extra,
    )) as never;
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    await hub.host.untilListed();
    return { resources: catalog(state()).resources.map((r) => r.resource) as never[] };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
    await hub.host.untilListed();
    return {
      resourceTemplates: catalog(state()).resourceTemplates.map((t) => t.template) as never[],
    };
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const owner = ownerOf(hub, state(), request.params.uri);
    return (await hub.forward(peer, owner, "resources/read", request.params, extra)) as never;
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) =>
    hub.subscriptions.subscribe(
      peer,
      ownerOf(hub, state(), request.params.uri),
      request.params.uri,
      extra,
    ),
  );
  server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) =>
    hub.subscriptions.unsubscribe(
      peer,
      ownerOf(hub, state(), request.params.uri),
      request.params.uri,
      extra,
    ),
  );
  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    const { ref } = request.params;
    if (ref.type === "ref/prompt") {
      const resolved = resolvePrompt(state(), ref.name);
      if (!resolved.ok) throw new ProtocolError(ErrorCode.InvalidParams, resolved.message);
      const params = { ...request.params, ref: { ...ref, name: resolved.rawName } };
      return (await hub.forward(
        peer,
        resolved.owner,
        "completion/complete",
        params,
        extra,
      )) as never;
    }
    const template = catalog(state()).resourceTemplates.find(
      (t) => t.template.uriTemplate === ref.uri,
    );
    const owner = template?.owner ?? ownerOf(hub, state(), ref.uri);
    return (await hub.forward(peer, owner, "completion/complete", request.params, extra)) as never;
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
