// The server's settings that decide durability and ordering, read back (for diagnostics).

import type { Query } from "../database/connection.js";

export interface ServerSettings {
  serverVersion: string;
  synchronousCommit: string;
  fsync: string;
  lockTimeout: string;
  transactionIsolation: string;
}

export async function readServerSettings(query: Query): Promise<ServerSettings> {
  const [row] = await query<{
    server_version: string;
    synchronous_commit: string;
    fsync: string;
    lock_timeout: string;
    transaction_isolation: string;
  }>(
    "SELECT current_setting('server_version') AS server_version, current_setting('synchronous_commit') AS synchronous_commit, current_setting('fsync') AS fsync, current_setting('lock_timeout') AS lock_timeout, current_setting('transaction_isolation') AS transaction_isolation",
  );
  return {
    serverVersion: row!.server_version,
    synchronousCommit: row!.synchronous_commit,
    fsync: row!.fsync,
    lockTimeout: row!.lock_timeout,
    transactionIsolation: row!.transaction_isolation,
  };
}
