import { createHash } from "node:crypto";
import type { DiscoverResult } from "@modelcontextprotocol/client";
import {
  type EraSource,
  type ExtensionEra,
  getExtension,
  type RecordEraCommand,
  type State,
} from "@toolledger/core";
import type { EraOutcome, EraRequest } from "../connection/eraNegotiation.js";
import { configFingerprint, type ExtensionConfig } from "../extensionConfig.js";
import type { ServerAuthorizer } from "../oauth/serverAuthorizer.js";

/** V1: one server's verdict as this process keeps it (a modern one with its advertisement). */
interface Kept {
  fingerprint: string;
  authContext: string | undefined;
  era: "modern" | "legacy";
  how: EraSource;
  discover?: DiscoverResult;
}

/** What a connection attempt asks for, and what its verdict will be recorded as. */
export interface EraAttempt {
  request: EraRequest;
  /** The `how` of a verdict reused (a prior); undefined: the connection settles it. */
  how?: EraSource;
  authContext: string | undefined;
  fingerprint: string;
}

/**
 * V1: each server's era, probed once and reused. A server's verdict is kept per config
 * fingerprint and authorization context: a restart in this process connects with the SDK's
 * `prior` (a legacy verdict: straight to `initialize`; a modern one: its DiscoverResult, no
 * round trip). A fresh process reuses the log's verdict (the registry state's `era`, which
 * an ExtensionAdded with another fingerprint clears): legacy as is; modern from its versions,
 * the connection then asking the server for its advertisement on the connection itself
 * (no probe, no sibling process). A pinned era (`protocol_era`) is not probed at all; a
 * verdict reached by a pin is not reused by `auto`. A start that failed with a reused
 * verdict forgets it, so the next attempt probes.
 */
export class EraVerdicts {
  readonly #kept = new Map<string, Kept>();
  /** Keys whose logged verdict failed in this process: not reused again. */
  readonly #distrusted = new Set<string>();
  readonly #recorded: (key: string, fingerprint: string) => Promise<ExtensionEra | undefined>;

  /** `recorded`: the log's verdict of a server under a config fingerprint, if any. */
  constructor(recorded: (key: string, fingerprint: string) => Promise<ExtensionEra | undefined>) {
    this.#recorded = recorded;
  }

  /** What the next connection of `key` asks for. */
  async attempt(
    key: string,
    config: ExtensionConfig,
    auth: ServerAuthorizer | null,
  ): Promise<EraAttempt> {
    const mode = config.protocolEra ?? "auto";
    const fingerprint = configFingerprint(config);
    const authContext = authContextOf(auth);
    const base = { authContext, fingerprint };
    if (mode === "legacy") return { ...base, request: { mode }, how: "pinned" };
    const kept = this.#kept.get(key);
    const same =
      kept && kept.fingerprint === fingerprint && kept.authContext === authContext ? kept : null;
    if (mode === "modern") {
      return same?.discover
        ? {
            ...base,
            request: { mode, prior: { kind: "modern", discover: same.discover } },
            how: "pinned",
          }
        : { ...base, request: { mode }, how: "pinned" };
    }
    if (same && same.how !== "pinned") {
      const prior =
        same.era === "legacy" || !same.discover
          ? ({ kind: "legacy" } as const)
          : ({ kind: "modern", discover: same.discover } as const);
      return { ...base, request: { mode, prior }, how: same.how };
    }
    const logged = this.#distrusted.has(key) ? undefined : await this.#recorded(key, fingerprint);
    if (logged && logged.how !== "pinned" && (logged.authContext ?? undefined) === authContext) {
      if (logged.era === "legacy")
        return { ...base, request: { mode, prior: { kind: "legacy" } }, how: logged.how };
      const discover = { supportedVersions: [...logged.supportedVersions], capabilities: {} };
      return {
        ...base,
        request: { mode, prior: { kind: "modern", discover, refresh: true } },
        how: logged.how,
      };
    }
    return { ...base, request: { mode } };
  }

  /** The connection came up: kept for the next, and the command that records it. */
  settled(key: string, attempt: EraAttempt, outcome: EraOutcome): RecordEraCommand {
    const how: EraSource = attempt.how ?? (outcome.era === "modern" ? "discover" : "initialize");
    this.#kept.set(key, {
      fingerprint: attempt.fingerprint,
      authContext: attempt.authContext,
      era: outcome.era,
      how,
      ...(outcome.discover ? { discover: outcome.discover } : {}),
    });
    return {
      type: "RecordEra",
      extension: key,
      era: outcome.era,
      protocolVersion: outcome.protocolVersion,
      supportedVersions: outcome.discover?.supportedVersions ?? [],
      how,
      ...(attempt.authContext === undefined ? {} : { authContext: attempt.authContext }),
    };
  }

  /** The start failed: a reused verdict may be stale, so the next attempt probes. */
  failed(key: string, attempt: EraAttempt): void {
    if (!attempt.request.prior) return;
    this.#kept.delete(key);
    this.#distrusted.add(key);
  }
}

/** The registry's verdict of `key`, from a state. */
export function recordedEra(state: State, key: string): ExtensionEra | undefined {
  return getExtension(state, key)?.era;
}

/**
 * V1: the authorization context a verdict holds for: a fingerprint of the issuer and the
 * client id, never a token (undefined: no OAuth, or no issuer known yet).
 */
export function authContextOf(auth: ServerAuthorizer | null): string | undefined {
  const issuer = auth?.provider.issuer;
  if (!auth || !issuer) return undefined;
  const client = auth.provider.clientInformation()?.client_id ?? "";
  return `sha256:${createHash("sha256").update(`${issuer}\n${client}`).digest("hex")}`;
}
