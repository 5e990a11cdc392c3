import { openSqliteEventStore } from "@toolledger/store-sqlite";
import { shellQuote } from "../output/shellQuote.js";

/**
 * What to do about a damaged SQLite file, naming only commands that work on it: the reading
 * ones are offered when the file still lists its sessions (`sessions` then marks the ones it
 * cannot read whole, and `export` copies a sound one to a new file).
 */
export async function damagedDatabaseHint(file: string): Promise<string> {
  const db = shellQuote(file);
  const steps = ["keep working on a new file with --db <new file> (or TOOLLEDGER_DB)"];
  if (await listsSessions(file)) {
    steps.push(
      `\`toolledger sessions --db ${db}\` lists what the damaged one holds (marking sessions it cannot read whole), and \`toolledger export <session> --db ${db} | toolledger import - --db <new file>\` copies a sound session over`,
    );
  }
  steps.push("or restore a backup");
  return steps.join("; ");
}

async function listsSessions(file: string): Promise<boolean> {
  try {
    const store = openSqliteEventStore(file, { readOnly: true });
    try {
      await store.listSessions();
      return true;
    } finally {
      await store.close();
    }
  } catch (error) {
    // Too damaged to list: the hint names no reading command.
    if ((error as Error).name === "EventStoreError") return false;
    throw error;
  }
}
