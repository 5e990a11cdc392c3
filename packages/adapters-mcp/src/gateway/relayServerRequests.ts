import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { HubServices } from "./hubServices.js";
import { ProtocolError, toProtocolError } from "./protocolError.js";
import { routeTaskRequest } from "./tasks/routeTaskRequest.js";

/** The client capability each relayed server request needs (G1). */
const NEEDS: Record<string, "sampling" | "elicitation"> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
};

const LooseResult = z.looseObject({});
/** A human answers elicitations: the server's own timeout (it cancels us) is the one that counts. */
const RELAY_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * G1: sampling and elicitation requests from an extension's server go to the client whose
 * call caused them (on that call's stream), when that client declared the capability;
 * otherwise the server gets the "method not found" a client without it would answer.
 */
export function relayServerRequests(hub: HubServices): void {
  hub.host.setUpstreamRequestHandler(async (extension, sent, signal) => {
    const capability = NEEDS[sent.method];
    // G4: a request for one of the server's tasks goes to the client that owns the task.
    const forTask = routeTaskRequest(hub, extension, sent);
    const request = forTask?.request ?? sent;
    const target = forTask ?? hub.requester(extension);
    if (capability === undefined || !target?.peer.server.getClientCapabilities()?.[capability]) {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        capability === undefined
          ? `${request.method} is not relayed by the toolledger gateway`
          : `Client does not support ${capability} (${request.method})${target ? "" : ": no client call is in progress at this server"}`,
      );
    }
    const message = { method: request.method, params: request.params ?? {} } as never;
    const options = { signal, timeout: RELAY_TIMEOUT_MS };
    try {
      return target.extra
        ? await target.extra.mcpReq.send(message, LooseResult, options)
        : await target.peer.server.request(message, LooseResult, options);
    } catch (error) {
      throw toProtocolError(error);
    }
  });
}
