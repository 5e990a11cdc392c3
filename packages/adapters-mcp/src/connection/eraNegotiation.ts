import type {
  Client,
  ClientOptions,
  DiscoverResult,
  ConnectOptions as SdkConnectOptions,
} from "@modelcontextprotocol/client";
import { SdkError, SdkErrorCode, SERVER_INFO_META_KEY } from "@modelcontextprotocol/client";

/** V1: the modern revision toolledger speaks upstream (the SDK's `pin`). */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** V1: how a connection settles its era: probe (`auto`), or the config's pin. */
export type EraMode = "auto" | "legacy" | "modern";

/**
 * V1: a verdict known before connecting (the SDK's `prior`): `legacy` skips the probe and
 * runs `initialize`; `modern` adopts a DiscoverResult with no round trip. `refresh`: the
 * DiscoverResult was rebuilt from the log (versions only), so the connection asks the server
 * for its real one (`server/discover` on the connection itself, no probe, no sibling process).
 */
export type EraPrior =
  | { kind: "legacy" }
  | { kind: "modern"; discover: DiscoverResult; refresh?: boolean };

export interface EraRequest {
  mode: EraMode;
  prior?: EraPrior;
}

/** V1: what the connection landed on. */
export interface EraOutcome {
  era: "modern" | "legacy";
  protocolVersion: string;
  /** The server's advertisement (modern only): kept in process for the next `prior`. */
  discover?: DiscoverResult;
  /** True when `server/discover` was sent before the era was known (auto or a pin, no prior). */
  probed: boolean;
}

/** The client options of a connection asked to reach its server in `request`'s era. */
export function negotiationOptions(
  request: EraRequest | undefined,
  probeTimeoutMs: number,
): Pick<ClientOptions, "versionNegotiation"> {
  const mode = request?.mode ?? "legacy";
  if (mode === "legacy") return {};
  // A stdio server silent to a pre-`initialize` request is legacy (the SDK falls back after
  // the probe's timeout): a start should not wait its whole timeout for that.
  const probe = { timeoutMs: Math.min(probeTimeoutMs, 10_000) };
  return {
    versionNegotiation:
      mode === "modern"
        ? { mode: { pin: MODERN_PROTOCOL_VERSION }, probe }
        : { mode: "auto", probe },
  };
}

/** The SDK `connect` options: the prior verdict, if any. */
export function priorOption(request: EraRequest | undefined): Pick<SdkConnectOptions, "prior"> {
  const prior = request?.prior;
  if (!prior) return {};
  return {
    prior: prior.kind === "legacy" ? prior : { kind: "modern", discover: prior.discover },
  };
}

/** After `connect`: the era, and (modern, rebuilt prior) the server's real advertisement. */
export async function eraOutcome(
  client: Client,
  request: EraRequest | undefined,
  timeoutMs: number,
): Promise<EraOutcome> {
  const era = client.getProtocolEra() ?? "legacy";
  const protocolVersion = client.getNegotiatedProtocolVersion() ?? "";
  if (era === "legacy")
    return { era, protocolVersion, probed: !request?.prior && isProbing(request) };
  const prior = request?.prior;
  const discover =
    prior?.kind === "modern" && prior.refresh
      ? await client.discover({ timeout: timeoutMs })
      : client.getDiscoverResult();
  return {
    era,
    protocolVersion,
    ...(discover ? { discover } : {}),
    probed: !prior && isProbing(request),
  };
}

const isProbing = (request: EraRequest | undefined) =>
  request?.mode === "auto" || request?.mode === "modern";

/**
 * V1: a start that failed because the config pinned the wrong era, said as such (the
 * server, the setting, what to set), or null for any other failure.
 */
export function eraMismatch(
  error: unknown,
  mode: EraMode | undefined,
  name: string,
): string | null {
  const text = errorText(error);
  const server = JSON.stringify(name);
  if (mode === "legacy" && /-32022|unsupported protocol version/i.test(text))
    return `extension ${server} refused the MCP 2025-11-25 handshake (${firstLine(text)}): it speaks only MCP ${MODERN_PROTOCOL_VERSION}, and its protocol era is set to legacy (protocol_era: legacy in its config, or serve --protocol-era legacy); set protocol_era to auto or modern`;
  if (
    mode === "modern" &&
    error instanceof SdkError &&
    error.code === SdkErrorCode.EraNegotiationFailed
  )
    return `extension ${server} does not offer MCP ${MODERN_PROTOCOL_VERSION} (${firstLine(text)}), and its protocol era is set to modern (protocol_era: modern in its config, or serve --protocol-era modern); set protocol_era to auto or legacy`;
  return null;
}

function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e instanceof Error && depth < 6; depth++) {
    parts.push(e.message);
    const data = (e as { data?: unknown }).data;
    if (data !== undefined) parts.push(JSON.stringify(data));
    e = (e as { cause?: unknown }).cause;
  }
  return parts.join("; ");
}

const firstLine = (text: string) => text.split("\n")[0]!.slice(0, 300);

/**
 * V1: a modern server names itself in every result's `_meta`; that is this hop's envelope, not
 * the answer the gateway passes on, so it is taken out (in place).
 */
export function withoutServerInfo(result: Record<string, unknown>): void {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta || !(SERVER_INFO_META_KEY in meta)) return;
  const { [SERVER_INFO_META_KEY]: _, ...rest } = meta;
  if (Object.keys(rest).length > 0) result._meta = rest;
  else delete result._meta;
}
