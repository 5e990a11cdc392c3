import { describe, expect, it } from "vitest";
import { openHost } from "../host/toolledgerHost.js";
import { createGatewayServer } from "./createGatewayServer.js";
import { GatewayHub } from "./gatewayHub.js";

describe("GatewayHub: whoever serves a host makes its hub (issue 21)", () => {
  it("G1 two downstream sessions of one host share the hub they are given", async () => {
    const host = await openHost();
    try {
      const hub = new GatewayHub(host, { onError: () => {} });
      const a = createGatewayServer(host, "streamable_http", { hub });
      const b = createGatewayServer(host, "streamable_http", { hub });
      expect(hub.peers.size).toBe(2);
      await a.dispose("done");
      await b.dispose("done");
      expect(hub.peers.size).toBe(0);
    } finally {
      await host.close();
    }
  });

  it("a second hub on a host another hub serves is refused with what to do, not silently merged", async () => {
    const host = await openHost();
    try {
      const first = createGatewayServer(host, "stdio", { onError: () => {} });
      expect(() => createGatewayServer(host, "stdio", { onError: () => {} })).toThrow(
        /already served by another gateway hub; give every downstream server of one host the same hub/,
      );
      // Once the first hub serves nobody, another may take the host.
      await first.dispose("done");
      const next = createGatewayServer(host, "stdio", { onError: () => {} });
      await next.dispose("done");
    } finally {
      await host.close();
    }
  });
});
