import { booleanOption, parseCommandArgs, renderHelp, stringOption } from "../commandSpec.js";
import { resolveDatabasePath } from "../databasePath.js";
import type { Deps } from "../deps.js";
import { EXIT } from "../exitCodes.js";
import { formatTable } from "../formatTable.js";
import { openStore } from "../openStore.js";
import { createOutput, shortTime } from "../output.js";
import { sessionsSpec } from "./sessionsSpec.js";

export async function sessionsCommand(args: readonly string[], deps: Deps): Promise<number> {
  const parsed = parseCommandArgs(sessionsSpec, args);
  const o = createOutput(deps);
  if (booleanOption(parsed, "help")) {
    o.data(renderHelp(sessionsSpec, o.out.bold));
    return EXIT.ok;
  }
  const location = resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd);
  const store = openStore(location, "read");
  try {
    const sessions = await store.listSessions();
    if (booleanOption(parsed, "json")) {
      o.json(
        sessions.map((s) => ({
          session: s.sessionId,
          events: s.eventCount,
          firstRecordedAt: s.firstRecordedAt,
          lastRecordedAt: s.lastRecordedAt,
        })),
      );
      return EXIT.ok;
    }
    if (sessions.length === 0) {
      o.note(`no sessions in ${location.path}; run \`toolledger demo\` to record one`);
      return EXIT.ok;
    }
    o.data(
      formatTable(
        sessions.map((s) => [
          s.sessionId,
          String(s.eventCount),
          shortTime(s.firstRecordedAt),
          shortTime(s.lastRecordedAt),
        ]),
        { header: ["SESSION", "EVENTS", "FIRST", "LAST"], right: [1], styleHeader: o.out.bold },
      ),
    );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
