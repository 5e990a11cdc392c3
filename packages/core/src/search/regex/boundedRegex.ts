/**
 * S1: a `/…/` query. JavaScript's RegExp backtracks, and a pattern such as `(a+)+$` takes
 * exponential time on a near-miss, with no way to stop it. This is a Thompson/Pike
 * automaton instead: every character is looked at once per state, so a match costs at most
 * (text length × program size) steps, and a search stops at a fixed step budget: the work is
 * bounded for real, and the same in every replay (a budget of steps, not of wall time).
 *
 * Supported: literals, `.`, classes `[a-z_]` / `[^…]`, `\d \w \s \D \W \S`, escapes, groups
 * `(…)` and `(?:…)`, alternation, `* + ?` and `{n}`, `{n,}`, `{n,m}` (lazy forms too: only
 * whether a match exists matters), anchors `^ $ \b \B`. Matching is case-insensitive.
 * Back-references and look-around need backtracking and are refused with a clear message.
 */

import { isWordChar, Parser, RegexSyntaxError, requiredLiteral } from "./regexParser.js";
import { emit, type Inst } from "./regexProgram.js";

export { MAX_REGEX_PROGRAM } from "./regexProgram.js";

/** Longest pattern accepted (characters between the slashes). */
export const MAX_REGEX_LENGTH = 200;

export interface CompiledRegex {
  source: string;
  program: readonly Inst[];
  /** Lowercase text every match contains (the longest literal run at the top level), or "". */
  required: string;
}

export type RegexCompile = { ok: true; regex: CompiledRegex } | { ok: false; message: string };

/** Compiles `source` (the text between the slashes) or says what is wrong with it. */
export function compileRegex(source: string): RegexCompile {
  if (source.length === 0) return { ok: false, message: "the regular expression is empty" };
  if (source.length > MAX_REGEX_LENGTH)
    return {
      ok: false,
      message: `the regular expression is ${source.length} characters; the limit is ${MAX_REGEX_LENGTH}`,
    };
  try {
    const parser = new Parser(source);
    const node = parser.parse();
    const program: Inst[] = [];
    emit(node, program);
    program.push({ op: "match" });
    return { ok: true, regex: { source, program, required: requiredLiteral(node) } };
  } catch (error) {
    if (error instanceof RegexSyntaxError) return { ok: false, message: error.message };
    throw error;
  }
}

export interface MatchBudget {
  /** Steps left; each (character, live state) pair costs one. */
  steps: number;
}

/**
 * Whether the regex matches anywhere in `text` (already lowercased), spending from `budget`.
 * Returns null when the budget ran out before an answer.
 */
export function regexMatches(
  regex: CompiledRegex,
  text: string,
  budget: MatchBudget,
): boolean | null {
  const prog = regex.program;
  const n = prog.length;
  let clist = new Int32Array(n);
  let nlist = new Int32Array(n);
  const onList = new Int32Array(n).fill(-1);
  let ccount = 0;
  let ncount = 0;
  let generation = 0;
  const add = (list: Int32Array, count: number, pc: number, pos: number): number => {
    const stack = [pc];
    let c = count;
    while (stack.length > 0) {
      const p = stack.pop()!;
      if (onList[p] === generation) continue;
      onList[p] = generation;
      const inst = prog[p]!;
      switch (inst.op) {
        case "jmp":
          stack.push(inst.x);
          break;
        case "split":
          stack.push(inst.y, inst.x);
          break;
        case "assert":
          if (assertionHolds(inst.kind, text, pos)) stack.push(p + 1);
          break;
        default:
          list[c++] = p;
      }
    }
    return c;
  };
  for (let pos = 0; pos <= text.length; pos++) {
    // Unanchored: a thread starts at every position.
    ccount = add(clist, ccount, 0, pos);
    budget.steps -= ccount + 1;
    if (budget.steps < 0) return null;
    generation++;
    ncount = 0;
    const ch = pos < text.length ? text.charCodeAt(pos) : -1;
    for (let i = 0; i < ccount; i++) {
      const inst = prog[clist[i]!]!;
      if (inst.op === "match") return true;
      if (inst.op === "char" && ch !== -1 && inst.test(ch))
        ncount = add(nlist, ncount, clist[i]! + 1, pos + 1);
    }
    // The next list was built in this generation, so the next start thread dedupes against it.
    [clist, nlist] = [nlist, clist];
    ccount = ncount;
  }
  for (let i = 0; i < ccount; i++) if (prog[clist[i]!]!.op === "match") return true;
  return false;
}

function assertionHolds(kind: "^" | "$" | "b" | "B", text: string, pos: number): boolean {
  if (kind === "^") return pos === 0;
  if (kind === "$") return pos === text.length;
  const before = pos > 0 && isWordChar(text.charCodeAt(pos - 1));
  const after = pos < text.length && isWordChar(text.charCodeAt(pos));
  return kind === "b" ? before !== after : before === after;
}
