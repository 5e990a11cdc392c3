import { readWholeStream, type SessionStore, type StoredEvent } from "@toolledger/core";
import { openSqliteEventStore } from "@toolledger/store-sqlite";
import { enableMatcher } from "../../src/goose/gooseDeferral.js";
import type { GooseSession } from "../../src/goose/gooseSession.js";
import {
  importGooseSession,
  type SessionImportResult,
} from "../../src/goose/importGooseSession.js";
import { readGooseDatabase } from "../../src/goose/readGooseDatabase.js";

/** Imports sessions of goose's database into a toolledger store, as the command does (parents first). */
export async function importAll(
  store: SessionStore,
  sessions: readonly GooseSession[],
): Promise<SessionImportResult[]> {
  const ordered = [...sessions].sort(
    (a, b) => (a.sessionType === "sub_agent" ? 1 : 0) - (b.sessionType === "sub_agent" ? 1 : 0),
  );
  const out: SessionImportResult[] = [];
  for (const s of ordered)
    out.push(
      await importGooseSession(store, s, {
        prefix: "goose-",
        matcher: enableMatcher(),
        loggedTools: new Map(),
        hostname: "test-host",
        toolledgerVersion: "0.0.0-test",
      }),
    );
  return out;
}

export function readAllSessions(file: string): GooseSession[] {
  return readGooseDatabase(file, (heads) => heads.map((h) => h.id)).sessions;
}

export async function withStore<T>(
  file: string,
  f: (store: SessionStore) => Promise<T>,
): Promise<T> {
  const store = openSqliteEventStore(file);
  try {
    return await f(store);
  } finally {
    await store.close();
  }
}

export async function events(store: SessionStore, stream: string): Promise<StoredEvent[]> {
  return readWholeStream(store, stream);
}
