import { accessSync, constants, mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { formatContextTokens } from "../output/contextTokens.js";
import { booleanOption, stringOption } from "../program/commandSpec.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { loadLog } from "../session/loadLog.js";
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
  const out = stringOption(parsed, "output");
  // Beside the SQLite file or the JSONL log; for a session on a server, or beside a file in a
  // read-only folder (a database opened read-only), here.
  const beside =
    log.dbFile !== undefined
      ? dirname(log.dbFile)
      : log.db !== undefined
        ? deps.cwd
        : dirname(resolve(deps.cwd, source));
  const folder = writable(beside) ? beside : deps.cwd;
  const file =
    out !== undefined
      ? resolve(deps.cwd, out)
      : join(folder, `${title.replace(/[^A-Za-z0-9._-]/g, "_")}.html`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, html);
  const last = data.tokens.points.at(-1);
  const bytes = Buffer.byteLength(html);
  const browser = booleanOption(parsed, "open") ? await openInBrowser(file, deps) : undefined;
  if (booleanOption(parsed, "json")) {
    o.json({
      file,
      source: log.label,
      events: data.steps,
      bytes,
      ...(last ? { tokens: { received: last[1], deferralOff: last[2] } } : {}),
      ...(browser ? { browser } : {}),
    });
    return EXIT.ok;
  }
  o.data(file);
  o.note(
    `wrote the view of ${log.label} (${data.steps} events, ${(bytes / 2 ** 20).toFixed(1)} MiB)${out === undefined && folder !== beside ? ` here, as ${beside} is read-only` : ""}${last ? `; at the end: ${formatContextTokens({ received: last[1], deferralOff: last[2], ...(last[3] === undefined ? {} : { lookup: last[3] }) })}` : ""}`,
  );
  if (browser?.opened === true) {
    o.note(
      `opened ${browser.url} with ${browser.opener}${browser.how === "still running" ? " (still running: the browser itself)" : ""}`,
    );
  } else if (browser !== undefined) {
    o.note(
      `${o.err.yellow("warning:")} no browser opened: ${browser.opener}: ${browser.why}; open ${file} yourself`,
    );
  }
  return EXIT.ok;
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EROFS" || code === "EPERM") return false;
    // Missing: it is created before writing.
    if (code === "ENOENT") return true;
    throw error;
  }
}
