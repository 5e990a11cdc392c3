// What opening a store takes: its options, and the store's own parameter of a URL.

/**
 * `"full"` (default): `synchronous_commit=on`, an acknowledged append is on the server's disk.
 * `"normal"`: `synchronous_commit=off`, it survives a crash of any client, but a crash of the
 * server may lose the last commits (never a partial batch, never reordered).
 */
export type Durability = "full" | "normal";

export interface PostgresEventStoreOptions {
  /** The schema that holds the store's tables. Default: the URL's `schema` parameter, else `"toolledger"`. */
  schema?: string;
  /** Create the schema and tables when missing (default). `false`: STORE_NOT_FOUND instead. */
  create?: boolean;
  /** Default `"full"`. */
  durability?: Durability;
  /** How long an append waits for the log's head lock before `STORE_BUSY`. Default 5000 ms. */
  lockTimeoutMs?: number;
  /** Connections in the pool. Default 4. */
  poolSize?: number;
  /** How long to wait for the server when connecting. Default 10,000 ms. */
  connectTimeoutMs?: number;
  /** Supplies `recordedAt`; default: the server's clock (one clock for every host). */
  now?: () => Date;
}

/** A `schema` query parameter picks the store's schema; the driver never sees it. */
export function splitSchemaParam(url: string): { url: string; schema: string | undefined } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, schema: undefined };
  }
  const schema = parsed.searchParams.get("schema");
  if (schema === null) return { url, schema: undefined };
  parsed.searchParams.delete("schema");
  return { url: parsed.href, schema };
}
