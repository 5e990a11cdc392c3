import type { State } from "@toolledger/core";
import type { Redactor } from "../redaction/redactor.js";
import type { WriteBehindReport, WriteBehindSettings } from "./writeBehindQueue.js";

export interface StreamWriterOptions {
  now: () => Date;
  /** The state a command is decided against (a conversation composes the registry in). */
  view?: (own: State) => State;
  /** The secrets no command may carry into an event (servers' text reaches commands). */
  redactor?: () => Redactor;
  /** C4: how events written behind are grouped, held and reported (see `writeBehind`). */
  writeBehind?: Partial<WriteBehindSettings> & { onReport?: (report: WriteBehindReport) => void };
  /**
   * L2 across streams (see `AppendGate`): `shared` for a stream decided against another one
   * (a conversation reads the registry), `exclusive` for the stream it reads (the registry).
   */
  gate?: "shared" | "exclusive";
  /**
   * L2: the version of the stream `view` composes in (the registry's): a decision written ahead
   * is decided again when it moved before the decision's record was appended.
   */
  follows?: () => number;
}
