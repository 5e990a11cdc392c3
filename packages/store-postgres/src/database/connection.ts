// The only file that imports the PostgreSQL driver (node-postgres): the rest of the store
// talks to this small surface, so a driver change stays in one file.
import pg from "pg";

/** Runs one statement and returns its rows. `name` makes it a prepared statement per connection. */
export type Query = <R>(text: string, values?: readonly unknown[], name?: string) => Promise<R[]>;

export interface ConnectionOptions {
  url: string;
  /** Connections in the pool. */
  max: number;
  /** `lock_timeout`: how long an append waits for the log's head lock. */
  lockTimeoutMs: number;
  /** `synchronous_commit`: `on` (an acknowledged append is on disk) or `off`. */
  synchronousCommit: boolean;
  /** How long to wait for a connection to the server. */
  connectTimeoutMs: number;
}

/** A LISTEN on one channel over a dedicated connection that comes back after a drop. */
export interface Listener {
  close(): Promise<void>;
}

export interface ListenHandlers {
  /** A NOTIFY on the channel, with its payload. */
  notification(payload: string): void;
  /** LISTEN is in place (first time, and after every reconnect: notifications may have been missed). */
  listening(): void;
  /** The listening connection failed; it is retried with backoff. */
  failed(error: unknown): void;
}

/** The pool and the listener of one store. */
export interface Connection {
  query: Query;
  /** Runs `fn` in one transaction on one connection (COMMIT on success, ROLLBACK on a throw). */
  transaction<T>(fn: (query: Query) => Promise<T>, begin?: string): Promise<T>;
  listen(channel: string, handlers: ListenHandlers): Listener;
  end(): Promise<void>;
}

const INT8 = 20;
const JSON_OID = 114;
const JSONB_OID = 3802;

/** Positions come back as numbers (they stay below 2^53) and JSON as its exact text (decoded by the store). */
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === INT8) return (value: string) => Number(value);
    if (oid === JSON_OID || oid === JSONB_OID) return (value: string) => value;
    return pg.types.getTypeParser(oid, format ?? "text");
  },
};

function clientConfig(options: ConnectionOptions): pg.ClientConfig {
  return {
    connectionString: options.url,
    application_name: "toolledger",
    // Appends rely on READ COMMITTED (each statement sees commits before the head lock was granted).
    options: [
      `-c lock_timeout=${Math.max(0, Math.round(options.lockTimeoutMs))}`,
      `-c synchronous_commit=${options.synchronousCommit ? "on" : "off"}`,
      "-c default_transaction_isolation=read\\ committed",
    ].join(" "),
    connectionTimeoutMillis: options.connectTimeoutMs,
    keepAlive: true,
    types,
  };
}

export function connect(options: ConnectionOptions): Connection {
  const pool = new pg.Pool({
    ...clientConfig(options),
    max: options.max,
    idleTimeoutMillis: 10_000,
  });
  // An idle connection the server dropped (a restart) is discarded; the next query reconnects.
  pool.on("error", () => {});
  const query: Query = async <R>(text: string, values?: readonly unknown[], name?: string) => {
    const result = await pool.query<R & pg.QueryResultRow>({
      text,
      ...(values === undefined ? {} : { values: values as unknown[] }),
      ...(name === undefined ? {} : { name }),
    });
    return result.rows;
  };
  const listeners = new Set<Listener>();
  return {
    query,
    async transaction(fn, begin = "BEGIN") {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query(begin);
        const run: Query = async <R>(text: string, values?: readonly unknown[]) =>
          (await client.query<R & pg.QueryResultRow>(text, values as unknown[] | undefined)).rows;
        const result = await fn(run);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        try {
          await client.query("ROLLBACK");
        } catch (rollbackError) {
          broken = rollbackError as Error;
        }
        throw error;
      } finally {
        client.release(broken);
      }
    },
    listen(channel, handlers) {
      const listener = listenWithReconnect(options, channel, handlers, () =>
        listeners.delete(listener),
      );
      listeners.add(listener);
      return listener;
    },
    async end() {
      await Promise.all([...listeners].map((l) => l.close()));
      await pool.end();
    },
  };
}

function listenWithReconnect(
  options: ConnectionOptions,
  channel: string,
  handlers: ListenHandlers,
  onClose: () => void,
): Listener {
  let closed = false;
  let client: pg.Client | null = null;
  let retryMs = 50;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(open, retryMs);
    retryMs = Math.min(retryMs * 2, 2000);
  };
  const open = async () => {
    if (closed) return;
    const c = new pg.Client(clientConfig(options));
    client = c;
    let dropped = false;
    const drop = (error: unknown) => {
      if (dropped) return;
      dropped = true;
      c.removeAllListeners("notification");
      c.end().catch(() => {});
      if (client === c) client = null;
      if (!closed) {
        handlers.failed(error);
        schedule();
      }
    };
    c.on("error", drop);
    c.on("end", () => drop(new Error("the listening connection ended")));
    c.on("notification", (message) => {
      if (message.channel === channel) handlers.notification(message.payload ?? "");
    });
    try {
      await c.connect();
      await c.query(`LISTEN "${channel.replaceAll('"', '""')}"`);
    } catch (error) {
      drop(error);
      return;
    }
    if (closed) {
      await c.end().catch(() => {});
      return;
    }
    retryMs = 50;
    handlers.listening();
  };
  void open();
  return {
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      onClose();
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners("end");
        c.removeAllListeners("error");
        c.on("error", () => {});
        await c.end().catch(() => {});
      }
    },
  };
}
