import { nameToKey, type PinPolicy, PinPolicySchema } from "@toolledger/core";
import type { LoadedConfig } from "../config/serverConfig.js";
import { usageError } from "../program/cliError.js";

const POLICIES = PinPolicySchema.options;

/**
 * P5: each server's pinning policy for `serve`: `--pinning <server>=<policy>`, else
 * `--pinning <policy>`, else the server's `pinning` in the config file (its entry's, else
 * the file's `toolledger:` setting), else `quarantine`. Flags win over the file, as every
 * other serve flag does. Returns the config with every server's policy set.
 */
export function resolvePinning(config: LoadedConfig, flags: readonly string[]): LoadedConfig {
  let all: PinPolicy | undefined;
  const byServer = new Map<string, PinPolicy>();
  const known = new Map(config.servers.map((s) => [nameToKey(s.name), s.name] as const));
  for (const flag of flags) {
    const eq = flag.lastIndexOf("=");
    const [server, value] = eq === -1 ? [undefined, flag] : [flag.slice(0, eq), flag.slice(eq + 1)];
    const policy = POLICIES.find((p) => p === value);
    if (!policy) {
      throw usageError(
        `serve: --pinning ${JSON.stringify(flag)}: the policy must be ${POLICIES.join(", ")}${server === undefined ? "" : ` (as <server>=<policy>)`}`,
        "serve",
      );
    }
    if (server === undefined) {
      all = policy;
      continue;
    }
    const key = nameToKey(server);
    if (!known.has(key)) {
      throw usageError(
        `serve: --pinning ${JSON.stringify(flag)}: no server ${JSON.stringify(server)} in ${config.file}; its servers are ${[...known.values()].join(", ") || "none"}`,
        "serve",
      );
    }
    byServer.set(key, policy);
  }
  return {
    ...config,
    servers: config.servers.map((s) => ({
      ...s,
      pinning: byServer.get(nameToKey(s.name)) ?? all ?? s.pinning ?? "quarantine",
    })),
  };
}
