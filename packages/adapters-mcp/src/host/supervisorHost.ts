import type { Command } from "@toolledger/core";
import type { Subject } from "rxjs";
import { AdapterError } from "../adapterError.js";
import type { UpstreamMessage } from "../connection/extensionConnection.js";
import type { StreamWriter } from "../ledger/streamWriter.js";
import type { Redactor } from "../redaction/redactor.js";
import type { BackgroundWork } from "./backgroundWork.js";
import type { UpstreamNotification, UpstreamRequestHandler } from "./callUpstream.js";
import { EraVerdicts, recordedEra } from "./eraVerdicts.js";
import type { ExtensionStatus } from "./extensionStatus.js";
import type { ResolvedHostOptions } from "./hostOptions.js";
import type { ExtensionLists } from "./lists/extensionLists.js";
import { type CatalogList, recordCatalogLoss } from "./lists/recordCatalog.js";
import { recordFetchFailure } from "./lists/recordToolsFetch.js";
import type { HostPins } from "./pins/hostPins.js";
import { type LoggedEra, previousEras } from "./previousEras.js";
import type { SupervisedExtension } from "./supervisedExtension.js";

/** What a supervisor tells its host, and asks of it. */
export interface SupervisorHost {
  readonly options: ResolvedHostOptions;
  readonly redactor: Redactor;
  /** True once the host is closing: no new work starts. */
  readonly closed: boolean;
  /** Who answers the server's sampling and elicitation requests (the gateway), if anyone. */
  readonly upstreamRequestHandler: UpstreamRequestHandler | null;
  /** V1: each server's era verdict, kept and reused. */
  readonly eras: EraVerdicts;
  /** A start failed; `error` says which attempt it was and what next. Recorded. */
  startFailed(s: SupervisedExtension, error: string): Promise<void>;
  /** Connected: list it (tools, prompts, resources); returns the tools listing's failure. */
  connected(
    s: SupervisedExtension,
    note: (e: AdapterError) => string,
  ): Promise<AdapterError | null>;
  /** The connection was lost (a crash, a hang); `note` says whether it is restarted. */
  lost(s: SupervisedExtension, error: string, note: string): void;
  /** R11: the server said tools/list_changed. */
  listChanged(s: SupervisedExtension): void;
  /** G1: the server said prompts or resources list_changed. */
  catalogChanged(s: SupervisedExtension, list: CatalogList): void;
  /** G1: any other notification of the server. */
  notification(s: SupervisedExtension, notification: UpstreamMessage): void;
  /** A problem that failed no request (a notification over the size limit). */
  warning(message: string): void;
  /** Its phase changed. */
  status(s: SupervisedExtension): void;
  /** Background work: failures reported, waited for by `settled` and `close`. */
  track(work: Promise<unknown>): void;
  /** A4: records a registry command in the background (an authorization's activity). */
  record(command: Command): void;
  /** A3: a secret (an OAuth token) joins the host's redactor. */
  addSecret(value: string): void;
}

/** The parts of a host its supervisors reach. */
export interface SupervisorHostParts {
  options: ResolvedHostOptions;
  redactor: () => Redactor;
  /** A3: adds a secret to the host's redactor. */
  addSecret: (value: string) => void;
  closed: () => boolean;
  upstreamRequestHandler: () => UpstreamRequestHandler | null;
  writer: StreamWriter;
  lists: ExtensionLists;
  pins: HostPins;
  background: BackgroundWork;
  notifications: Subject<UpstreamNotification>;
  errors: Subject<AdapterError>;
  status: Subject<ExtensionStatus>;
}

/** What a host's supervisors tell it (their connections' events) and ask of it, wired to its parts. */
export function supervisorHost(p: SupervisorHostParts): SupervisorHost {
  const { writer, lists, background } = p;
  // V1: a verdict of this registry stream, else of the database's earlier ones (read once).
  let previous: Promise<Map<string, LoggedEra>> | null = null;
  const eras = new EraVerdicts(async (key, fingerprint) => {
    const own = recordedEra(writer.state, key);
    if (own) return own;
    previous ??= previousEras(writer.store, writer.streamId).catch(() => new Map());
    const logged = (await previous).get(key);
    return logged?.fingerprint === fingerprint ? logged.era : undefined;
  });
  return {
    options: p.options,
    eras,
    get redactor() {
      return p.redactor();
    },
    get closed() {
      return p.closed();
    },
    get upstreamRequestHandler() {
      return p.upstreamRequestHandler();
    },
    startFailed: async (s, error) => {
      await recordFetchFailure(writer, s.key, error);
    },
    connected: async (s, note) => {
      // P2: its instructions are pinned before anything of it is listed.
      await p.pins.connected(s.key, s.connection);
      return lists.listNew(s, note);
    },
    lost: (s, error, note) => {
      background.track(recordFetchFailure(writer, s.key, `${error}${note}`));
      // G1: its prompts and resources leave the lists with its tools.
      for (const lost of recordCatalogLoss(writer, s.key, error)) background.track(lost);
    },
    listChanged: (s) => lists.toolsChanged(s),
    catalogChanged: (s, list) => lists.catalogChanged(s, list),
    notification: (s, n) => p.notifications.next({ extension: s.key, ...n }),
    warning: (message) => p.errors.next(new AdapterError("MESSAGE_TOO_LARGE", message)),
    status: (s) => {
      if (!p.closed()) p.status.next(s.status);
    },
    track: (work) => background.track(work),
    record: (command) => background.track(writer.execute(() => command)),
    addSecret: (value) => p.addSecret(value),
  };
}
