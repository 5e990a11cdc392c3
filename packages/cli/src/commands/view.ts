import { mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { booleanOption, stringOption } from "../commandSpec.js";
import { formatContextTokens } from "../contextTokens.js";
import type { Deps } from "../deps.js";
import { EXIT } from "../exitCodes.js";
import { loadLog } from "../loadLog.js";
import { startCommand } from "../startCommand.js";
import { buildViewData } from "../view/buildViewData.js";
import { openInBrowser } from "../view/openInBrowser.js";
import { renderViewHtml } from "../view/renderViewHtml.js";
import { defaultRulesDocument, viewRules } from "../view/rulesDocument.js";
import { viewSpec } from "./viewSpec.js";

export async function viewCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(viewSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const source = parsed.positionals[0]!;
  const log = await loadLog(source, stringOption(parsed, "db"), deps);
  const title = log.session ?? basename(source).replace(/\.jsonl?$/, "");
  const data = buildViewData(log.entries, {
    title,
    source: log.label,
    version: deps.version,
    now: deps.now(),
    rules: viewRules(defaultRulesDocument()),
  });
  const html = renderViewHtml(data);
  const out = stringOption(parsed, "out");
  const file =
    out !== undefined
      ? resolve(deps.cwd, out)
      : join(
          // Beside the SQLite file or the JSONL log; for a session on a server, here.
          log.dbFile !== undefined
            ? dirname(log.dbFile)
            : log.db !== undefined
              ? deps.cwd
              : dirname(resolve(deps.cwd, source)),
          `${title.replace(/[^A-Za-z0-9._-]/g, "_")}.html`,
        );
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, html);
  const last = data.tokens.points.at(-1);
  o.data(file);
  o.note(
    `wrote the view of ${log.label} (${data.steps} events, ${(Buffer.byteLength(html) / 2 ** 20).toFixed(1)} MiB)${last ? `; at the end: ${formatContextTokens({ received: last[1], deferralOff: last[2] })}` : ""}`,
  );
  if (booleanOption(parsed, "open")) {
    const failure = await openInBrowser(file, deps);
    if (failure !== undefined)
      o.note(
        `${o.err.yellow("warning:")} could not open a browser (${failure}); open ${file} yourself`,
      );
  }
  return EXIT.ok;
}
