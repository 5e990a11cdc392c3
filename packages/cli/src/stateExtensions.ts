import type { ExtensionState, State } from "@toolledger/core";

// The core keeps extensions in an internal map shape (a bucketed record, or a plain record
// in older builds) and exports no accessor, so the CLI reads both shapes here and only here.
type Bucketed = { buckets: readonly (Readonly<Record<string, ExtensionState>> | null)[] };

function records(state: State): Readonly<Record<string, ExtensionState>>[] {
  const ext = state.extensions as unknown;
  if (typeof ext === "object" && ext !== null && Array.isArray((ext as Bucketed).buckets)) {
    return (ext as Bucketed).buckets.filter(
      (b): b is Readonly<Record<string, ExtensionState>> => b !== null,
    );
  }
  return [ext as Readonly<Record<string, ExtensionState>>];
}

/** Every extension key, sorted. */
export function extensionKeys(state: State): string[] {
  return records(state)
    .flatMap((r) => Object.keys(r))
    .sort();
}

export function getExtension(state: State, key: string): ExtensionState | undefined {
  for (const r of records(state)) if (Object.hasOwn(r, key)) return r[key];
  return undefined;
}
