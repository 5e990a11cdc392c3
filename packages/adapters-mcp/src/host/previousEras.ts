import {
  type EraSource,
  type EventStore,
  type ExtensionEra,
  nameToKey,
  type ProtocolEra,
} from "@toolledger/core";

/** How many earlier registry streams are read for verdicts (newest first). */
const STREAMS_READ = 5;

/** A verdict found in the log, with the config fingerprint it holds for. */
export interface LoggedEra {
  fingerprint: string;
  era: ExtensionEra;
}

/**
 * V1: the era verdicts earlier hosts on this database recorded (each serve writes a new
 * registry stream): per extension key, the newest verdict and the config fingerprint it was
 * reached under (an ExtensionAdded with another fingerprint voids it, as the fold does). Read
 * once per host, and only from a store that lists its sessions; nothing otherwise.
 */
export async function previousEras(
  store: EventStore,
  ownStreamId: string,
): Promise<Map<string, LoggedEra>> {
  const found = new Map<string, LoggedEra>();
  const sessions = (store as { listSessions?: () => Promise<{ sessionId: string }[]> })
    .listSessions;
  if (typeof sessions !== "function") return found;
  const registries = (await sessions.call(store))
    .map((s) => s.sessionId)
    .filter((id) => id.startsWith("host-") && id !== ownStreamId)
    .reverse()
    .slice(0, STREAMS_READ);
  for (const streamId of registries) {
    const fingerprints = new Map<string, string>();
    const eras = new Map<string, LoggedEra>();
    for (const { event } of await store.readStream(streamId)) {
      const e = event as unknown as Record<string, unknown>;
      if (e.type === "ExtensionAdded") {
        const key = nameToKey(String(e.name));
        const fingerprint = String(e.configFingerprint);
        if (fingerprints.get(key) !== fingerprint) eras.delete(key);
        fingerprints.set(key, fingerprint);
      } else if (e.type === "ExtensionEraDetected") {
        const key = nameToKey(String(e.extension));
        const fingerprint = fingerprints.get(key);
        if (fingerprint === undefined) continue;
        eras.set(key, {
          fingerprint,
          era: {
            era: e.era as ProtocolEra,
            protocolVersion: String(e.protocolVersion),
            supportedVersions: (e.supportedVersions as string[] | undefined) ?? [],
            how: e.how as EraSource,
            authContext: (e.authContext as string | undefined) ?? null,
            at: (e.at as string | undefined) ?? null,
          },
        });
      }
    }
    for (const [key, logged] of eras) if (!found.has(key)) found.set(key, logged);
  }
  return found;
}
