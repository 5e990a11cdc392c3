import { hget } from "../fold/hashDict.js";
import type { RegisteredTool, State } from "../fold/state.js";
import { listTools } from "../registry/listTools.js";
import { closeNames } from "./closeNames.js";
import { winnerOf, wireWinner } from "./nameOwners.js";

export interface ResolveOptions {
  /** R8: let hidden extensions' tools resolve (host-internal calls only). */
  includeHidden?: boolean;
}

export interface ResolvedTool {
  ok: true;
  publicName: string;
  /** R14: the name the tool is served under (the public name when it fits). */
  wireName: string;
  /** The owning extension's key. */
  extension: string;
  /** The name to send to the owning server. */
  rawName: string;
  tool: RegisteredTool;
  /** Whether the name had to be recovered from a mangled form (R13). */
  recovered: boolean;
}

export interface ResolveFailure {
  ok: false;
  error: {
    code: "UNKNOWN_TOOL" | "AMBIGUOUS_TOOL";
    name: string;
    message: string;
    /** Close public names (unknown), or every match (ambiguous). */
    suggestions: string[];
  };
}

export type ResolveResult = ResolvedTool | ResolveFailure;

/**
 * R13: exact public name first, then one recovery of a mangled name: trimmed, a leading
 * `functions.`/`functions:` stripped, and `.` accepted for the first `__` (or between an
 * unprefixed tool's owner and name). Exactly one tool must match.
 */
export function resolveTool(
  state: State,
  name: string,
  options: ResolveOptions = {},
): ResolveResult {
  const includeHidden = options.includeHidden ?? false;
  const exact = visibleWinner(state, name, includeHidden);
  if (exact) return resolved(exact, false);

  const s = stripMangling(name);
  const matches = new Map<string, RegisteredTool>();
  const direct = visibleWinner(state, s, includeHidden);
  if (direct) matches.set(direct.publicName, direct);
  for (let i = s.indexOf("."); i !== -1; i = s.indexOf(".", i + 1)) {
    const head = s.slice(0, i);
    const tail = s.slice(i + 1);
    const prefixed = `${head}__${tail}`;
    if (prefixed.indexOf("__") === i) {
      const tool = visibleWinner(state, prefixed, includeHidden);
      if (tool) matches.set(tool.publicName, tool);
    }
    const owner = hget(state.extensions, head);
    if (owner?.exposeUnprefixed) {
      const tool = visibleWinner(state, tail, includeHidden);
      if (tool && tool.owner === head) matches.set(tool.publicName, tool);
    }
  }
  if (matches.size === 1) return resolved([...matches.values()][0]!, true);
  if (matches.size > 1) {
    const names = [...matches.values()].map((t) => t.wireName).sort();
    return {
      ok: false,
      error: {
        code: "AMBIGUOUS_TOOL",
        name,
        message: `tool name ${JSON.stringify(name)} is ambiguous: it could be ${names.join(" or ")}; call it by its exact name`,
        suggestions: names,
      },
    };
  }
  // The names the model was served (R14), which R13 accepts as well as public names.
  const suggestions = closeNames(
    s,
    listTools(state, { includeHidden }).map((t) => t.wireName),
  );
  return {
    ok: false,
    error: {
      code: "UNKNOWN_TOOL",
      name,
      message:
        `no tool named ${JSON.stringify(name)}` +
        (suggestions.length > 0
          ? `; close names: ${suggestions.join(", ")}`
          : "; list the tools to see the exact names"),
      suggestions,
    },
  };
}

/** R13: the one recovery step: trimmed, a leading `functions.` or `functions:` stripped. */
export function stripMangling(name: string): string {
  const s = name.trim();
  return s.startsWith("functions.") || s.startsWith("functions:")
    ? s.slice("functions.".length)
    : s;
}

/** The winning tool with this public name, else the one served under this wire name (R14). */
function visibleWinner(
  state: State,
  name: string,
  includeHidden: boolean,
): RegisteredTool | undefined {
  const tool =
    winnerOf(state, name) ?? (state.wireNames.size > 0 ? wireWinner(state, name) : undefined);
  if (!tool) return undefined;
  if (!includeHidden && hget(state.extensions, tool.owner)?.hidden) return undefined;
  return tool;
}

function resolved(tool: RegisteredTool, recovered: boolean): ResolvedTool {
  return {
    ok: true,
    publicName: tool.publicName,
    wireName: tool.wireName,
    extension: tool.owner,
    rawName: tool.rawName,
    tool,
    recovered,
  };
}
