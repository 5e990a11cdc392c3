import { readFileSync } from "node:fs";
import { LineCounter, parseDocument } from "yaml";
import { CliError } from "../program/cliError.js";
import { checkJsonSyntax, firstLine } from "./checkJsonSyntax.js";
import type { ConfigContext } from "./configContext.js";
import { fromGoose, fromMcpServers, fromVsCode } from "./configFormats.js";
import { isRecord } from "./isRecord.js";
import { keyPosition, type Locate, position } from "./locate.js";
import type { LoadedConfig } from "./serverConfig.js";

export type { ConfigContext } from "./configContext.js";
export { CONFIG_ENV, gooseConfigPath, resolveConfigPath } from "./configPath.js";
export { workspaceFolder } from "./finishConfig.js";

/** Reads and validates a config file; every problem is reported with file:line:column and field. */
export function loadConfig(file: string, context: ConfigContext): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new CliError("notFound", `config file ${file} does not exist`, {
        hint: "check the path given to --config",
      });
    }
    throw new CliError("badInput", `cannot read config file ${file}: ${(error as Error).message}`);
  }
  return parseConfig(file, text, context);
}

const NO_CONTEXT: ConfigContext = { env: {}, home: "", cwd: "/" };

export function parseConfig(
  file: string,
  text: string,
  context: ConfigContext = NO_CONTEXT,
): LoadedConfig {
  const lines = new LineCounter();
  const source = file.endsWith(".json") ? checkJsonSyntax(file, text) : text;
  const doc = parseDocument(source, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const first = doc.errors[0];
  if (first) {
    const pos = lines.linePos(first.pos[0]);
    throw new CliError("badInput", `${file}:${pos.line}:${pos.col}: ${firstLine(first.message)}`, {
      hint: "fix the syntax; the file must be JSON or YAML",
    });
  }
  const data: unknown = doc.toJS();
  const at: Locate = {
    value: (path) => position(doc, lines, path),
    key: (path) => keyPosition(doc, lines, path) ?? position(doc, lines, path),
  };
  if (isRecord(data) && "mcpServers" in data) return fromMcpServers(file, data, at, context);
  if (isRecord(data) && "servers" in data) return fromVsCode(file, data, at, context);
  if (isRecord(data) && "extensions" in data) return fromGoose(file, data, at, context);
  throw new CliError(
    "badInput",
    `${file}:1:1: no "mcpServers" object, no "servers" object and no "extensions" map`,
    {
      hint: 'use the Claude Desktop / Cursor format {"mcpServers": {"name": {"command": "…", "args": []}}}, VS Code\'s {"servers": {…}}, or a goose config.yaml with an "extensions:" map',
    },
  );
}
