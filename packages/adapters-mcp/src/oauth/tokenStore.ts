import { createHash, randomUUID } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type {
  OAuthClientInformationMixed,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import { type FileLockOptions, withFileLock } from "./fileLock.js";

/** How a grant's client identifies itself (recorded in events, shown by `auth status`). */
export type ClientKind = "configured" | "metadata_document" | "dynamic";

/** What is known about a server: which authorization server it names, and its metadata (no secret). */
export interface ServerRecord {
  serverUrl: string;
  /** The authorization server discovery found (its URL as the resource names it). */
  issuer: string | null;
  discovery: OAuthDiscoveryState | null;
  updatedAt: string;
}

/** A2: one server's grant from one issuer. Holds secrets: only this file and memory see them. */
export interface GrantRecord {
  serverUrl: string;
  issuer: string;
  /** A client this store registered (dynamic) or named by its metadata document URL; a configured client is not stored. */
  client: {
    info: OAuthClientInformationMixed;
    kind: ClientKind;
    redirectUri: string | null;
  } | null;
  tokens: OAuthTokens | null;
  /** Epoch ms the access token expires at; null when the server did not say. */
  expiresAt: number | null;
  /** Epoch ms the access token was obtained (its lifetime decides when it is refreshed). */
  obtainedAt: number | null;
  scopes: string[];
  grant: "authorization_code" | "client_credentials" | null;
  clientKind: ClientKind | null;
  authorizedAt: string | null;
  lastRefreshAt: string | null;
  refreshes: number;
  /** Bumped by every write, so a process can tell another one refreshed the tokens. */
  generation: number;
}

/** A token file that cannot be read as one (edited by hand, cut short): said, never overwritten silently. */
export class OAuthStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OAuthStoreError";
  }
}

const FORMAT = 1;

/**
 * A2: OAuth state on disk, one directory per user: a file per server (discovery) and a file
 * per server and issuer (client registration and tokens), each mode 0600 in a 0700
 * directory, replaced atomically (written aside, synced, renamed). Refreshes of one server
 * and issuer are serialised across processes by a lock file beside it.
 */
export class OAuthTokenStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** `$XDG_CONFIG_HOME/toolledger/oauth`, else `~/.config/toolledger/oauth` (`%APPDATA%` on Windows). */
  static defaultDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
    if (env.TOOLLEDGER_OAUTH_DIR) return env.TOOLLEDGER_OAUTH_DIR;
    const base =
      process.platform === "win32"
        ? (env.APPDATA ?? join(home, "AppData", "Roaming"))
        : env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== ""
          ? env.XDG_CONFIG_HOME
          : join(home, ".config");
    return join(base, "toolledger", "oauth");
  }

  readServer(serverUrl: string): ServerRecord | null {
    return this.#read<ServerRecord>(this.serverFile(serverUrl));
  }

  writeServer(record: ServerRecord): void {
    this.#write(this.serverFile(record.serverUrl), record);
  }

  read(serverUrl: string, issuer: string): GrantRecord | null {
    const record = this.#read<GrantRecord>(this.grantFile(serverUrl, issuer));
    // A file names what it holds: one copied under another name is not used for this pair.
    if (record && (record.serverUrl !== serverUrl || record.issuer !== issuer)) return null;
    return record;
  }

  write(record: GrantRecord): void {
    this.#write(this.grantFile(record.serverUrl, record.issuer), record);
  }

  /** Forgets a server: its grants from every issuer and its discovery. */
  remove(serverUrl: string): void {
    const prefix = serverKey(serverUrl);
    for (const name of this.#names())
      if (name.startsWith(prefix)) rmSync(join(this.dir, name), { force: true });
  }

  /** Runs `work` holding the lock of one server and issuer (A2: one refresh at a time). */
  lock<T>(
    serverUrl: string,
    issuer: string,
    work: () => Promise<T>,
    options?: FileLockOptions,
  ): Promise<T> {
    this.#ensureDir();
    return withFileLock(`${this.grantFile(serverUrl, issuer)}.lock`, work, options);
  }

  /** Every server with OAuth state, with its grants. */
  list(): { server: ServerRecord; grants: GrantRecord[] }[] {
    const names = this.#names().filter((n) => n.endsWith(".json"));
    const servers = names.filter((n) => /^[0-9a-f]{24}\.json$/.test(n));
    return servers.flatMap((name) => {
      const server = this.#read<ServerRecord>(join(this.dir, name));
      if (!server) return [];
      const prefix = name.slice(0, 24);
      const grants = names
        .filter((n) => n.startsWith(`${prefix}-`))
        .map((n) => this.#read<GrantRecord>(join(this.dir, n)))
        .filter((g): g is GrantRecord => g !== null && g.serverUrl === server.serverUrl);
      return [{ server, grants }];
    });
  }

  /** When a grant's file last changed (ms), or 0: a cheap test for another process's write. */
  changedAt(serverUrl: string, issuer: string): number {
    try {
      return statSync(this.grantFile(serverUrl, issuer)).mtimeMs;
    } catch {
      return 0;
    }
  }

  serverFile(serverUrl: string): string {
    return join(this.dir, `${serverKey(serverUrl)}.json`);
  }

  grantFile(serverUrl: string, issuer: string): string {
    return join(this.dir, `${serverKey(serverUrl)}-${hash(issuer).slice(0, 16)}.json`);
  }

  #names(): string[] {
    try {
      return readdirSync(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  }

  #read<T>(file: string): T | null {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new OAuthStoreError(
        `cannot read the OAuth token file ${file}: ${(error as NodeJS.ErrnoException).code ?? "error"}`,
        { cause: error },
      );
    }
    try {
      const parsed = JSON.parse(text) as { format?: unknown; record?: T };
      if (parsed.format !== FORMAT || typeof parsed.record !== "object" || !parsed.record)
        throw new Error(`not a toolledger OAuth file of format ${FORMAT}`);
      return parsed.record;
    } catch (error) {
      throw new OAuthStoreError(
        `the OAuth token file ${file} is damaged (${(error as Error).message}); remove it (then authorize again with \`toolledger auth login <server>\`)`,
        { cause: error },
      );
    }
  }

  #write(file: string, record: object): void {
    this.#ensureDir();
    const tmp = `${file}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
    const fd = openSync(tmp, "wx", 0o600);
    try {
      writeSync(fd, `${JSON.stringify({ format: FORMAT, record }, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(tmp, file);
    } catch (error) {
      rmSync(tmp, { force: true });
      throw error;
    }
  }

  #ensureDir(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    try {
      chmodSync(this.dir, 0o700);
    } catch {
      // A directory we may not change (another owner): its files are still 0600.
    }
  }
}

/** A new grant record for a server and issuer, nothing granted yet. */
export function emptyGrant(serverUrl: string, issuer: string): GrantRecord {
  return {
    serverUrl,
    issuer,
    client: null,
    tokens: null,
    expiresAt: null,
    obtainedAt: null,
    scopes: [],
    grant: null,
    clientKind: null,
    authorizedAt: null,
    lastRefreshAt: null,
    refreshes: 0,
    generation: 0,
  };
}

function serverKey(serverUrl: string): string {
  return hash(normalizeServerUrl(serverUrl)).slice(0, 24);
}

/** A server's URL as the store keys it (parsed and printed, so spellings of one URL agree). */
export function normalizeServerUrl(serverUrl: string): string {
  try {
    const url = new URL(serverUrl);
    url.hash = "";
    return url.href;
  } catch {
    return serverUrl;
  }
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
