import type { ExtensionEraDetected } from "@toolledger/core";

/** V1: an upstream's era verdict, in replay's and the view's terms. */
export interface EraChange {
  kind: "era";
  extension: string;
  era: "modern" | "legacy";
  protocolVersion: string;
  supportedVersions: string[];
  how: "discover" | "initialize" | "pinned";
}

export function eraChange(event: ExtensionEraDetected): EraChange {
  return {
    kind: "era",
    extension: event.extension,
    era: event.era,
    protocolVersion: event.protocolVersion,
    supportedVersions: [...event.supportedVersions],
    how: event.how,
  };
}

/** One line for an era verdict (replay and the view share it). */
export function describeEraChange(c: EraChange): string {
  const how =
    c.how === "pinned"
      ? "pinned by protocol_era (its config or serve --protocol-era), no fallback"
      : c.how === "discover"
        ? `server/discover offered ${c.supportedVersions.join(", ") || "nothing"}`
        : "no server/discover; initialize answered";
  return `${c.extension} speaks MCP ${c.protocolVersion} (${c.era} era: ${how})`;
}
