import { z } from "zod";
import { EVENT_SCHEMA_VERSION } from "../events/eventSchemaVersion.js";
import { origin } from "../events/origin.js";

// V1: which protocol era each upstream speaks, as the gateway found it. Nothing here is a
// secret: an authorization context is named by a fingerprint, never by a token.

const v = z.literal(EVENT_SCHEMA_VERSION);
const at = z.string().optional();

/** `modern`: MCP 2026-07-28 and later (no initialize, no sessions); `legacy`: 2025-11-25 and earlier. */
export const ProtocolEraSchema = z.enum(["modern", "legacy"]);
export type ProtocolEra = z.infer<typeof ProtocolEraSchema>;

/**
 * How the verdict was reached: `discover` (the server answered `server/discover`),
 * `initialize` (it did not, and answered `initialize`), `pinned` (the user's config named the
 * era: no probe).
 */
export const EraSourceSchema = z.enum(["discover", "initialize", "pinned"]);
export type EraSource = z.infer<typeof EraSourceSchema>;

/** V1: a connection to an upstream settled its era. */
export const ExtensionEraDetectedSchema = z.object({
  type: z.literal("ExtensionEraDetected"),
  v,
  at,
  /** The extension's key (R1). */
  extension: z.string(),
  era: ProtocolEraSchema,
  /** The protocol version the connection speaks. */
  protocolVersion: z.string(),
  /** What `server/discover` said the server supports (empty: it was not asked, or did not answer). */
  supportedVersions: z.array(z.string()).default([]),
  how: EraSourceSchema,
  /**
   * V1: the authorization context the verdict holds for, for a server behind OAuth: a
   * secret-free fingerprint of the issuer and client (absent: no authorization).
   */
  authContext: z.string().optional(),
  origin,
});
export type ExtensionEraDetected = z.infer<typeof ExtensionEraDetectedSchema>;

export const RecordEraCommandSchema = z.strictObject({
  type: z.literal("RecordEra"),
  at,
  extension: z.string(),
  era: ProtocolEraSchema,
  protocolVersion: z.string().min(1),
  supportedVersions: z.array(z.string()).optional(),
  how: EraSourceSchema,
  authContext: z.string().min(1).optional(),
});
export type RecordEraCommand = z.output<typeof RecordEraCommandSchema>;

/** What the registry keeps of an extension's latest verdict. */
export interface ExtensionEra {
  era: ProtocolEra;
  protocolVersion: string;
  supportedVersions: readonly string[];
  how: EraSource;
  authContext: string | null;
  /** When it was recorded (the event's `at`). */
  at: string | null;
}
