import type { ExtensionConnection } from "../connection/extensionConnection.js";
import type { ExtensionStatus } from "./extensionStatus.js";

/**
 * One extension as the host's parts see its supervisor (ExtensionSupervisor): what its
 * listings, refetches and reports need, in a file of its own so that they need not import the
 * supervisor that reports to them.
 */
export interface SupervisedExtension {
  readonly key: string;
  /** The connection, while it is open. */
  readonly connection: ExtensionConnection | null;
  /** Changes with every connection installed or dropped, and at every retire. */
  readonly generation: number;
  /** Whether work begun under `generation` still speaks for this extension. */
  current(generation: number): boolean;
  /** R11: a ToolsInvalidated was recorded (or queued) since its last tools fetch started. */
  invalidated: boolean;
  /** R11: the queued ToolsInvalidated, awaited before a fetch reads the version it starts at. */
  invalidation: Promise<unknown> | null;
  readonly status: ExtensionStatus;
}
