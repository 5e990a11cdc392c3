import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { appendToConversation } from "../session/appendToConversation.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { openStore } from "../session/openStore.js";
import { clearSpec, compactSpec } from "./lifecycleSpec.js";

/** `toolledger clear <conversation>` (D8, C3). */
export function clearCommand(args: readonly string[], deps: Deps): Promise<number> {
  return lifecycle("Clear", args, deps);
}

/** `toolledger compact <conversation>` (D7, C3). */
export function compactCommand(args: readonly string[], deps: Deps): Promise<number> {
  return lifecycle("Compact", args, deps);
}

async function lifecycle(
  type: "Clear" | "Compact",
  args: readonly string[],
  deps: Deps,
): Promise<number> {
  const spec = type === "Clear" ? clearSpec : compactSpec;
  const cmd = startCommand(spec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const id = parsed.positionals[0]!;
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = await openStore(location, "write");
  try {
    const { before, version } = await appendToConversation(store, id, { type }, deps.now);
    const info = before.conversation!;
    const enabled = before.enabled;
    if (booleanOption(parsed, "json")) {
      o.json({
        conversation: id,
        appended: type === "Clear" ? "Cleared" : "Compacted",
        version,
        status: info.status,
        enabled: type === "Clear" ? [] : [...enabled],
        cleared: type === "Clear" ? [...enabled] : [],
      });
      return EXIT.ok;
    }
    const what =
      type === "Clear"
        ? `cleared ${id}: ${enabled.length > 0 ? `${enabled.join(", ")} deferred again` : "nothing was enabled"}`
        : `compacted ${id}: ${enabled.length} enabled tool(s) carried (${enabled.join(", ") || "none"})`;
    o.data(what);
    o.note(
      info.status === "open"
        ? "the conversation is open: the process serving it folds this within a second and tells its client"
        : `the conversation is closed${info.closedReason ? ` (${info.closedReason})` : ""}; it applies if the conversation is resumed`,
    );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
