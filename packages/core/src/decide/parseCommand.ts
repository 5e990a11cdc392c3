import { TOOLLEDGER_DEFERRAL_MODES } from "../deferral/parseDeferralConfig.js";
import { COMMAND_TYPES, CommandSchema } from "./command.js";
import { type ParsedCommand, type Rejection, rejected } from "./decision.js";
import { asReloaded, type JsonSeen, jsonProblem } from "./jsonProblem.js";
import { parseCallCommand } from "./parseCallCommand.js";

const TYPES: ReadonlySet<string> = new Set(COMMAND_TYPES);

/** E6: the command as its schema reads it, or a typed refusal that says what to fix. */
export function parseCommand(input: unknown): { ok: true; command: ParsedCommand } | Rejection {
  const isObject = typeof input === "object" && input !== null && !Array.isArray(input);
  const type = isObject ? (input as { type?: unknown }).type : undefined;
  if (!isObject) {
    return rejected(
      "INVALID_COMMAND",
      `a command must be an object with a "type" (one of ${COMMAND_TYPES.join(", ")}); got ${preview(input)}`,
      "",
    );
  }
  if (typeof type !== "string" || !TYPES.has(type)) {
    return rejected(
      "UNKNOWN_COMMAND",
      `unknown command type ${preview(type)}; the command types are ${COMMAND_TYPES.join(", ")}`,
      "type",
    );
  }
  // C4: the two commands of every tools/call skip zod when plainly valid (the hot path).
  const call = type === "StartCall" || type === "FinishCall" ? parseCallCommand(input) : null;
  const parsed = call ? { success: true as const, data: call } : CommandSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String).join(".");
    if (type === "ConfigureDeferral" && path === "mode") {
      return rejected(
        "UNKNOWN_DEFERRAL_MODE",
        `ConfigureDeferral: unknown deferral mode ${preview((input as { mode?: unknown }).mode)}; the modes are ${TOOLLEDGER_DEFERRAL_MODES.map((m) => JSON.stringify(m)).join(", ")} (D1: goose's GOOSE_TOOL_DEFERRAL takes only "lookup"; S1: search and auto are toolledger's own)`,
        "mode",
      );
    }
    return rejected(
      "INVALID_COMMAND",
      `${type}: ${path || "command"}: ${issue.message}; the command was not applied`,
      path,
    );
  }
  let command = parsed.data;
  const payload =
    command.type === "StartCall"
      ? command.arguments
      : command.type === "FinishCall"
        ? command.result
        : undefined;
  // A call's start or finish without a recorded payload (the host did not opt in) is done.
  if (call && payload === undefined) return { ok: true, command };
  // Recorded payloads are free-form too, and must reload as they were folded. JSON has no
  // negative zero: a -0 in them is recorded as the 0 the log reloads (rare: only then a copy).
  const seen: JsonSeen = { negativeZero: false };
  if (payload !== undefined) {
    const field = command.type === "StartCall" ? "arguments" : "result";
    const problem = jsonProblem(payload, [field], seen);
    if (problem) {
      const path = problem.path.join(".");
      return rejected("INVALID_COMMAND", `${command.type}: ${path}: ${problem.message}`, path);
    }
    if (seen.negativeZero)
      command =
        command.type === "StartCall"
          ? { ...command, arguments: asReloaded(command.arguments) }
          : command.type === "FinishCall"
            ? { ...command, result: asReloaded(command.result) }
            : command;
  }
  if (command.type === "RecordPrompts" || command.type === "RecordResources") {
    const listed =
      command.type === "RecordPrompts"
        ? { prompts: command.prompts }
        : { resources: command.resources, resourceTemplates: command.resourceTemplates };
    const problem = jsonProblem(listed, [], seen);
    if (problem) {
      const path = problem.path.join(".");
      return rejected("INVALID_COMMAND", `${command.type}: ${path}: ${problem.message}`, path);
    }
    if (seen.negativeZero) command = { ...command, ...asReloaded(listed) };
  }
  if (command.type === "RecordFetch") {
    // The tools' free-form fields (schemas, _meta) must survive the log's JSON round trip.
    const problem = jsonProblem(command.tools, ["tools"], seen);
    if (problem) {
      const path = problem.path.join(".");
      return rejected("INVALID_COMMAND", `RecordFetch: ${path}: ${problem.message}`, path);
    }
    if (seen.negativeZero) command = { ...command, tools: asReloaded(command.tools) };
    if (command.complete === false && command.reason === undefined) {
      return rejected(
        "INVALID_COMMAND",
        'RecordFetch: reason: a partial fetch (complete: false) needs the reason it stopped (R9), e.g. "tools/list page 2 failed: timeout"',
        "reason",
      );
    }
  }
  return { ok: true, command };
}

function preview(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "function") return "a function";
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "symbol") return value.toString();
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    // A cyclic or otherwise unprintable value still gets a refusal, not a throw.
    text = Object.prototype.toString.call(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
