/**
 * G1: what the gateway declares. Servers can be added after a client connected, and a
 * client's capabilities are fixed at its handshake, so everything the gateway can relay is
 * declared whether or not a server offers it now (an empty list is the honest answer then).
 */
export const GATEWAY_CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  completions: {},
  logging: {},
  // G4: the gateway runs a task for any tool; a server that runs tasks runs its own.
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
} as const;
