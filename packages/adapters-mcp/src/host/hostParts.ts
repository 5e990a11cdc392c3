import type { Subject } from "rxjs";
import type { AdapterError } from "../adapterError.js";
import type { StreamWriter } from "../ledger/streamWriter.js";
import type { Redactor } from "../redaction/redactor.js";
import { BackgroundWork } from "./backgroundWork.js";
import type { UpstreamNotification, UpstreamRequestHandler } from "./callUpstream.js";
import type { ExtensionStatus } from "./extensionStatus.js";
import type { ResolvedHostOptions } from "./hostOptions.js";
import { ExtensionLists } from "./lists/extensionLists.js";
import { HostPins } from "./pins/hostPins.js";
import { supervisorHost } from "./supervisorHost.js";
import { Supervisors } from "./supervisors.js";

/** What a host (ToolledgerHost) is made of, besides its registry stream's writer. */
export interface HostParts {
  /** Work in the background: its failures reported, waited for by `settled` and `close`. */
  background: BackgroundWork;
  /** P4: the pins ledger, once a server is pinned. */
  pins: HostPins;
  /** R11/G1: the extensions' tools, prompts and resources, listed and refetched. */
  lists: ExtensionLists;
  /** Its extensions, one supervisor each. */
  supervisors: Supervisors;
}

/**
 * A host's parts, wired to each other and to what the host keeps: its subjects, and what
 * changes while it runs (its redactor, whether it is closed, who answers the servers' requests).
 */
export function hostParts(
  writer: StreamWriter,
  options: ResolvedHostOptions,
  host: {
    errors: Subject<AdapterError>;
    status: Subject<ExtensionStatus>;
    notifications: Subject<UpstreamNotification>;
    redactor: () => Redactor;
    /** A3: adds a secret to the host's redactor. */
    addSecret: (value: string) => void;
    closed: () => boolean;
    upstreamRequestHandler: () => UpstreamRequestHandler | null;
  },
): HostParts {
  const background = new BackgroundWork(host.errors);
  const pins = new HostPins({
    writer,
    policy: options.pinning,
    followIntervalMs: options.pinsFollowIntervalMs,
    now: options.now,
    redactor: host.redactor,
    report: (error) => host.errors.next(error),
  });
  const lists = new ExtensionLists(writer, options, {
    closed: host.closed,
    track: (work) => background.track(work),
    report: (error) => background.report(error),
    beforeRecord: (command) => pins.beforeRecord(command),
  });
  const supervised = supervisorHost({
    options,
    redactor: host.redactor,
    addSecret: host.addSecret,
    closed: host.closed,
    upstreamRequestHandler: host.upstreamRequestHandler,
    writer,
    lists,
    pins,
    background,
    notifications: host.notifications,
    errors: host.errors,
    status: host.status,
  });
  return { background, pins, lists, supervisors: new Supervisors(writer, supervised, pins) };
}
