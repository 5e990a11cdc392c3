import type { AdapterError } from "../adapterError.js";

/**
 * Where an extension is in its life: starting (process and handshake), listing (tools/list in
 * flight), ready, retrying (waiting for the next attempt), failed (no attempt left: reconnect
 * it) or stopped (disconnected by the host).
 */
export type ExtensionPhase =
  | "starting"
  | "listing"
  | "ready"
  | "retrying"
  | "failed"
  | "stopped"
  /** A4: waiting for the user to authorize it (OAuth); it starts again when they did. */
  | "authorizing";

export type ConnectionStatus = "connected" | "disconnected";

export interface ExtensionStatus {
  key: string;
  name: string;
  status: ConnectionStatus;
  /** Why it is disconnected (a crash, a hang, a failed start) or failed (its tools could not be listed), or null. */
  reason: string | null;
  phase: ExtensionPhase;
  /** Attempts to start it since it was added or last stayed up (0 before the first). */
  attempts: number;
  /** When the next attempt starts (phase `retrying`), else null. */
  nextAttemptAt: string | null;
}

export interface AddResult {
  name: string;
  key: string;
  ok: boolean;
  /** START_FAILED with the command (or URL) and the stderr tail, when `ok` is false. */
  error?: AdapterError;
}
