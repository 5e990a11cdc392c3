import { ExtensionConnection, fetchTools } from "@toolledger/adapters-mcp";
import { toExtensionConfig } from "../serve/toExtensionConfig.js";
import type { ServerSource } from "./checkHosts.js";
import { oauthAdvice } from "./checkOAuth.js";
import type { DoctorFinding } from "./doctorFinding.js";

/** Servers started at once: enough to finish soon, few enough not to swamp a small machine. */
const PARALLEL = 4;

/**
 * Starts each enabled server of each source as the gateway would (same config, same
 * environment rules), lists its tools and closes it: one finding per server, with how long it
 * took. Messages come from the adapters, which redact every secret of the config.
 */
export async function checkServers(
  sources: readonly ServerSource[],
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs: number,
  version: string,
): Promise<DoctorFinding[]> {
  const jobs: (() => Promise<DoctorFinding>)[] = [];
  const findings: DoctorFinding[] = [];
  for (const source of sources) {
    for (const server of source.config.servers) {
      const subject = `${source.label}/${server.name}`;
      if (!server.enabled) {
        findings.push({
          check: "server",
          subject,
          status: "skip",
          message: "disabled in its config",
        });
        continue;
      }
      const config = toExtensionConfig(server, env);
      if (config === null) {
        findings.push({
          check: "server",
          subject,
          status: "skip",
          message: `a goose ${server.kind} extension: it lives inside goose`,
        });
        continue;
      }
      if (server.problem !== undefined) {
        findings.push({ check: "server", subject, status: "fail", message: server.problem });
        continue;
      }
      jobs.push(async () => {
        const started = performance.now();
        const ms = () => Math.round(performance.now() - started);
        let connection: ExtensionConnection | undefined;
        try {
          connection = await ExtensionConnection.connect(
            { ...config, startTimeoutMs: timeoutMs },
            {
              connectTimeoutMs: timeoutMs,
              clientInfo: { name: "toolledger-doctor", version },
              // V1: probed as serve would (its own probe: the log's verdict may be stale).
              era: { mode: config.protocolEra ?? "auto" },
            },
          );
          const fetched = await fetchTools(connection, {
            requestTimeoutMs: timeoutMs,
            maxPages: 100,
          });
          const took = ms();
          return {
            check: "server",
            subject,
            status: fetched.complete ? "ok" : "warn",
            message: `started and listed ${fetched.tools.length} tool(s) in ${took} ms${fetched.complete ? "" : ` (incomplete: ${fetched.reason})`}; ${eraText(connection.era, config.protocolEra)}`,
            ms: took,
          };
        } catch (error) {
          const took = ms();
          const message = (error as Error).message;
          const oauth = oauthAdvice(server, message);
          return {
            check: "server",
            subject,
            status: "fail",
            message: `${message} (after ${took} ms)`,
            fix:
              oauth ??
              (config.type === "stdio"
                ? `run its command by hand to see why (${server.source.file}:${server.source.line})`
                : `check that ${config.url.replace(/\?.*$/, "")} answers (${server.source.file}:${server.source.line})`),
            ms: took,
          };
        } finally {
          await connection?.close().catch(() => undefined);
        }
      });
    }
  }
  return [...findings, ...(await runLimited(jobs, PARALLEL))];
}

/** V1: which era the server speaks, and how doctor found out. */
function eraText(
  era: ExtensionConnection["era"],
  setting: "auto" | "legacy" | "modern" | undefined,
): string {
  const how =
    setting === "legacy" || setting === "modern"
      ? "pinned by its protocol_era"
      : era.era === "modern"
        ? "by server/discover"
        : "no server/discover; initialize answered";
  return `speaks MCP ${era.protocolVersion} (${era.era} era, ${how})`;
}

async function runLimited<T>(jobs: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}
