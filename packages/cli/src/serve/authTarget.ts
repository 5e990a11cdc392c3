import { type HttpExtensionConfig, OAuthTokenStore } from "@toolledger/adapters-mcp";
import { nameToKey } from "@toolledger/core";
import { loadConfig, resolveConfigPath } from "../config/loadConfig.js";
import { CliError } from "../program/cliError.js";
import { type ParsedArgs, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { toExtensionConfig } from "./toExtensionConfig.js";

/** The user's OAuth token store (A2). */
export function userTokenStore(deps: Pick<Deps, "env" | "home">): OAuthTokenStore {
  return new OAuthTokenStore(OAuthTokenStore.defaultDir(deps.env, deps.home));
}

/**
 * A remote server of the config by its name (or key), as `serve` would connect to it: its
 * URL, headers and `oauth` settings, variables expanded. A stdio server or an unknown name is
 * an error saying which servers there are.
 */
export function remoteServer(
  parsed: ParsedArgs,
  deps: Deps,
  name: string,
  action: string,
): { server: HttpExtensionConfig; file: string } {
  const file = resolveConfigPath(stringOption(parsed, "config"), deps.env, deps.home, deps.cwd);
  const config = loadConfig(file, deps);
  const found = config.servers.find(
    (s) => s.name === name || nameToKey(s.name) === nameToKey(name),
  );
  const remote = config.servers.filter((s) => s.kind === "streamable_http" || s.kind === "sse");
  if (!found) {
    throw new CliError(
      "notFound",
      `auth ${action}: no server named ${JSON.stringify(name)} in ${file}`,
      {
        hint:
          remote.length > 0
            ? `its remote servers: ${remote.map((s) => s.name).join(", ")}`
            : `${file} has no remote (HTTP or SSE) server`,
      },
    );
  }
  const ext = toExtensionConfig(found, deps.env);
  if (!ext || ext.type === "stdio") {
    throw new CliError(
      "usage",
      `auth ${action}: ${found.name} (${file}:${found.source.line}) is a ${found.kind} server; OAuth is for remote (HTTP or SSE) servers`,
    );
  }
  if (found.problem !== undefined) throw new CliError("badInput", found.problem);
  return { server: ext, file };
}
