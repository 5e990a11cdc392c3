import { loadConfig } from "../config/loadConfig.js";
import { checkDatabase } from "../doctor/checkDatabase.js";
import { checkHosts, type ServerSource } from "../doctor/checkHosts.js";
import { checkNode } from "../doctor/checkNode.js";
import { checkOAuth } from "../doctor/checkOAuth.js";
import { checkServers } from "../doctor/checkServers.js";
import { checkSqliteModule } from "../doctor/checkSqliteModule.js";
import { type DoctorFinding, formatFinding } from "../doctor/doctorFinding.js";
import type { CliError } from "../program/cliError.js";
import { booleanOption, integerOption, stringOption } from "../program/commandSpec.js";
import { debugRequested, debugStack } from "../program/debugStack.js";
import type { Deps } from "../program/deps.js";
import { EXIT } from "../program/exitCodes.js";
import { startCommand } from "../program/startCommand.js";
import { toCliError } from "../program/toCliError.js";
import { resolveDatabasePath } from "../session/databasePath.js";
import { doctorSpec } from "./doctorSpec.js";

export async function doctorCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(doctorSpec, args, deps);
  if (!cmd) return EXIT.ok;
  const { parsed, o } = cmd;
  const json = booleanOption(parsed, "json");
  const timeoutMs = integerOption(parsed, "timeout", "doctor", 1) ?? 15_000;
  const findings: DoctorFinding[] = [];
  // Findings print as they come: a slow server should not hide the rest.
  const report = (more: readonly DoctorFinding[]) => {
    findings.push(...more);
    if (!json) for (const f of more) o.data(formatFinding(f, o.out));
  };

  // A finding that is a bug in toolledger says to rerun with TOOLLEDGER_DEBUG=1: then its stack.
  const unexpected = (e: CliError) => {
    const stack = e.kind === "internal" && debugRequested(deps.env) ? debugStack(e) : undefined;
    if (stack !== undefined) o.note(stack);
  };
  report([checkNode(), await checkSqliteModule()]);
  report([
    await checkDatabase(
      resolveDatabasePath(stringOption(parsed, "db"), deps.env, deps.home, deps.cwd),
      unexpected,
    ),
  ]);
  const hosts = checkHosts(deps, unexpected);
  report(hosts.findings);
  let sources: ServerSource[] = hosts.sources;
  const configFlag = stringOption(parsed, "config");
  if (configFlag !== undefined) {
    try {
      const config = loadConfig(configFlag, deps);
      sources = [{ label: config.file, config }];
    } catch (error) {
      const e = toCliError(error);
      unexpected(e);
      sources = [];
      report([
        {
          check: "server",
          subject: configFlag,
          status: "fail",
          message: e.message,
          ...(e.hint ? { fix: e.hint } : {}),
        },
      ]);
    }
  }
  if (booleanOption(parsed, "no-servers")) {
    report([
      {
        check: "server",
        subject: "servers",
        status: "skip",
        message: "not started (--no-servers)",
      },
    ]);
  } else if (sources.every((s) => s.config.servers.length === 0)) {
    report([
      {
        check: "server",
        subject: "servers",
        status: "skip",
        message: "none configured in any host (or --config)",
      },
    ]);
  } else {
    report(await checkServers(sources, deps.env, timeoutMs, deps.version));
  }
  report(await checkOAuth(deps));

  const count = (status: DoctorFinding["status"]) =>
    findings.filter((f) => f.status === status).length;
  const summary = {
    ok: count("ok"),
    warn: count("warn"),
    fail: count("fail"),
    skip: count("skip"),
  };
  if (json) {
    o.json({
      toolledger: deps.version,
      node: process.versions.node,
      platform: `${process.platform}-${process.arch}`,
      summary,
      findings,
    });
  } else {
    o.note(
      `${summary.fail} failed, ${summary.warn} warning(s), ${summary.ok} ok, ${summary.skip} not checked (toolledger ${deps.version}, Node ${process.versions.node}, ${process.platform}-${process.arch})`,
    );
  }
  return summary.fail > 0 ? EXIT.unhealthy : EXIT.ok;
}
