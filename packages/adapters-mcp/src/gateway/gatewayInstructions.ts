import {
  EVENT_SCHEMA_VERSION,
  evolve,
  getExtension,
  modelView,
  type State,
  servedInstructions,
} from "@toolledger/core";
import type { ConversationOptions } from "../conversation/conversationOptions.js";
import type { ToolledgerHost } from "../host/toolledgerHost.js";

/**
 * G1: each connected server's instructions, after the deferral prompt (D4). A single source
 * is passed on verbatim, so a gateway in front of one server says what that server says.
 */
export function gatewayInstructions(
  host: ToolledgerHost,
  prompt: string | null = null,
): string | undefined {
  const parts: string[] = prompt ? [prompt] : [];
  const servers = host
    .extensions()
    .filter((e) => getExtension(host.state, e.key)?.hidden === false)
    // P2: a server's instructions as approved (pending ones are not passed on).
    .map((e) => ({
      name: e.name,
      text: servedInstructions(host.state, e.key, host.connection(e.key)?.instructions),
    }))
    .filter(
      (s): s is { name: string; text: string } =>
        typeof s.text === "string" && s.text.trim() !== "",
    );
  if (parts.length === 0 && servers.length === 1) return servers[0]!.text;
  for (const s of servers) parts.push(`## ${s.name}\n\n${s.text}`);
  return parts.length > 0 ? parts.join("\n\n") : undefined;
}

/** The instructions a new client gets at the handshake: its conversation's deferred-tools section. */
export function handshakePrompt(
  registry: State,
  deferral: ConversationOptions["deferral"] | undefined,
): string | null {
  if (!deferral) return modelView(registry).systemPrompt;
  const state = evolve(registry, {
    type: "DeferralConfigured",
    v: EVENT_SCHEMA_VERSION,
    mode: deferral.mode,
    alwaysLoad: [...(deferral.alwaysLoad ?? [])],
    ...(deferral.budget === undefined ? {} : { budget: deferral.budget }),
  });
  return modelView(state).systemPrompt;
}
