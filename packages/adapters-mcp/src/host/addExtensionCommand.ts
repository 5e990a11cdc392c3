import type { Command } from "@toolledger/core";
import { configFingerprint, type ExtensionConfig } from "../extensionConfig.js";

/** R6: the command that records an extension's config (secrets only through the fingerprint). */
export function addExtensionCommand(config: ExtensionConfig): Command {
  return {
    type: "AddExtension",
    name: config.name,
    kind: config.kind ?? config.type,
    exposeUnprefixed: config.exposeUnprefixed ?? false,
    hidden: config.hidden ?? false,
    availableTools: config.availableTools ?? [],
    configFingerprint: configFingerprint(config),
  };
}
