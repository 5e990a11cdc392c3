import type { Peer } from "./downstreamPeer.js";
import type { GatewayHub } from "./gatewayHub.js";

/**
 * G1: `logging/setLevel` sets this client's level and asks each server that logs for the
 * most verbose level any client wants; the servers' messages reach every client whose level
 * admits them (the hub relays them).
 */
export function relayLogging(hub: GatewayHub, peer: Peer): void {
  peer.server.setRequestHandler("logging/setLevel", async (request, extra) => {
    peer.logLevel = request.params.level;
    await hub.logLevels.apply(extra, peer);
    return {};
  });
}
