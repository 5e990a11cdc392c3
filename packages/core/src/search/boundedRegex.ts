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

/** Longest pattern accepted (characters between the slashes). */
export const MAX_REGEX_LENGTH = 200;
/** Largest compiled program (instructions), after `{n,m}` repetitions are expanded. */
export const MAX_REGEX_PROGRAM = 2_000;

type CharTest = (c: number) => boolean;
type Inst =
  | { op: "char"; test: CharTest }
  | { op: "split"; x: number; y: number }
  | { op: "jmp"; x: number }
  | { op: "assert"; kind: "^" | "$" | "b" | "B" }
  | { op: "match" };

type Node =
  | { t: "char"; test: CharTest; lit?: number }
  | { t: "assert"; kind: "^" | "$" | "b" | "B" }
  | { t: "cat"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "rep"; node: Node; min: number; max: number };

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

class RegexSyntaxError extends Error {}

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

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function assertionHolds(kind: "^" | "$" | "b" | "B", text: string, pos: number): boolean {
  if (kind === "^") return pos === 0;
  if (kind === "$") return pos === text.length;
  const before = pos > 0 && isWordChar(text.charCodeAt(pos - 1));
  const after = pos < text.length && isWordChar(text.charCodeAt(pos));
  return kind === "b" ? before !== after : before === after;
}

function emit(node: Node, out: Inst[]): void {
  if (out.length > MAX_REGEX_PROGRAM)
    throw new RegexSyntaxError(
      `the regular expression is too large once its repetitions are expanded (limit ${MAX_REGEX_PROGRAM} steps); use fewer or smaller {n,m}`,
    );
  switch (node.t) {
    case "char":
      out.push({ op: "char", test: node.test });
      return;
    case "assert":
      out.push({ op: "assert", kind: node.kind });
      return;
    case "cat":
      for (const item of node.items) emit(item, out);
      return;
    case "alt": {
      const jumps: Inst[] = [];
      for (let i = 0; i < node.items.length; i++) {
        if (i < node.items.length - 1) {
          const split: Inst = { op: "split", x: out.length + 1, y: -1 };
          out.push(split);
          emit(node.items[i]!, out);
          const jmp: Inst = { op: "jmp", x: -1 };
          out.push(jmp);
          jumps.push(jmp);
          (split as { y: number }).y = out.length;
        } else emit(node.items[i]!, out);
      }
      for (const j of jumps) (j as { x: number }).x = out.length;
      return;
    }
    case "rep": {
      for (let i = 0; i < node.min; i++) emit(node.node, out);
      if (node.max === Number.POSITIVE_INFINITY) {
        const split: Inst = { op: "split", x: out.length + 1, y: -1 };
        const at = out.length;
        out.push(split);
        emit(node.node, out);
        out.push({ op: "jmp", x: at });
        (split as { y: number }).y = out.length;
        return;
      }
      const splits: Inst[] = [];
      for (let i = node.min; i < node.max; i++) {
        const split: Inst = { op: "split", x: out.length + 1, y: -1 };
        out.push(split);
        splits.push(split);
        emit(node.node, out);
      }
      for (const s of splits) (s as { y: number }).y = out.length;
      return;
    }
  }
}

const lower = (c: number): number =>
  c < 128 ? (c >= 65 && c <= 90 ? c + 32 : c) : String.fromCharCode(c).toLowerCase().charCodeAt(0);
const DIGIT: CharTest = (c) => c >= 48 && c <= 57;
const SPACE: CharTest = (c) => c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0xfeff;
const ANY: CharTest = (c) => c !== 10;

class Parser {
  #i = 0;
  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.#alt();
    if (this.#i < this.src.length)
      throw new RegexSyntaxError(`unmatched ")" at position ${this.#i + 1}`);
    return node;
  }

  #alt(): Node {
    const items = [this.#cat()];
    while (this.src[this.#i] === "|") {
      this.#i++;
      items.push(this.#cat());
    }
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  #cat(): Node {
    const items: Node[] = [];
    while (this.#i < this.src.length && this.src[this.#i] !== "|" && this.src[this.#i] !== ")") {
      items.push(this.#repeat(this.#atom()));
    }
    return items.length === 1 ? items[0]! : { t: "cat", items };
  }

  #repeat(node: Node): Node {
    let out = node;
    for (;;) {
      const c = this.src[this.#i];
      let min: number;
      let max: number;
      if (c === "*") [min, max] = [0, Number.POSITIVE_INFINITY];
      else if (c === "+") [min, max] = [1, Number.POSITIVE_INFINITY];
      else if (c === "?") [min, max] = [0, 1];
      else if (c === "{" && /^\{\d+(,\d*)?\}/.test(this.src.slice(this.#i))) {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.#i))!;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === "" ? Number.POSITIVE_INFINITY : Number(m[3]);
        if (max < min)
          throw new RegexSyntaxError(`{${min},${max}}: the maximum is below the minimum`);
        if (min > 100 || (max !== Number.POSITIVE_INFINITY && max > 100))
          throw new RegexSyntaxError("repetition counts above 100 are not accepted");
        this.#i += m[0].length - 1;
      } else return out;
      this.#i++;
      if (this.src[this.#i] === "?") this.#i++;
      if (out.t === "assert") throw new RegexSyntaxError("an anchor cannot be repeated");
      out = { t: "rep", node: out, min, max };
    }
  }

  #atom(): Node {
    const c = this.src[this.#i]!;
    this.#i++;
    switch (c) {
      case "(": {
        if (this.src[this.#i] === "?") {
          if (this.src[this.#i + 1] !== ":")
            throw new RegexSyntaxError(
              "look-around and named groups are not supported (they need backtracking); use plain groups",
            );
          this.#i += 2;
        }
        const inner = this.#alt();
        if (this.src[this.#i] !== ")") throw new RegexSyntaxError('a "(" is never closed');
        this.#i++;
        return inner;
      }
      case "[":
        return this.#class();
      case ".":
        return { t: "char", test: ANY };
      case "^":
        return { t: "assert", kind: "^" };
      case "$":
        return { t: "assert", kind: "$" };
      case "\\":
        return this.#escape();
      case "*":
      case "+":
      case "?":
        throw new RegexSyntaxError(`"${c}" at position ${this.#i} has nothing to repeat`);
      default:
        return literal(c.charCodeAt(0));
    }
  }

  #escape(): Node {
    const c = this.src[this.#i];
    if (c === undefined) throw new RegexSyntaxError("the pattern ends with a lone backslash");
    this.#i++;
    if (c === "b" || c === "B") return { t: "assert", kind: c };
    if (/[1-9]/.test(c))
      throw new RegexSyntaxError("back-references are not supported (they need backtracking)");
    return { t: "char", test: this.#escapeTest(c) };
  }

  #escapeTest(c: string): CharTest {
    switch (c) {
      case "d":
        return DIGIT;
      case "D":
        return (x) => !DIGIT(x);
      case "w":
        return isWordChar;
      case "W":
        return (x) => !isWordChar(x);
      case "s":
        return SPACE;
      case "S":
        return (x) => !SPACE(x);
      case "n":
        return (x) => x === 10;
      case "t":
        return (x) => x === 9;
      default:
        if (/[A-Za-z0-9]/.test(c)) throw new RegexSyntaxError(`the escape \\${c} is not supported`);
        return literal(c.charCodeAt(0)).test;
    }
  }

  #class(): Node {
    const negate = this.src[this.#i] === "^";
    if (negate) this.#i++;
    const tests: CharTest[] = [];
    let first = true;
    while (this.#i < this.src.length && (this.src[this.#i] !== "]" || first)) {
      first = false;
      let lo: number;
      const c = this.src[this.#i]!;
      this.#i++;
      if (c === "\\") {
        const e = this.src[this.#i];
        if (e === undefined) break;
        this.#i++;
        if (/[dDwWsS]/.test(e)) {
          tests.push(this.#escapeTest(e));
          continue;
        }
        lo = e === "n" ? 10 : e === "t" ? 9 : e.charCodeAt(0);
      } else lo = c.charCodeAt(0);
      if (
        this.src[this.#i] === "-" &&
        this.src[this.#i + 1] !== "]" &&
        this.#i + 1 < this.src.length
      ) {
        this.#i++;
        let hiChar = this.src[this.#i]!;
        this.#i++;
        if (hiChar === "\\") {
          hiChar = this.src[this.#i] ?? "";
          this.#i++;
        }
        const hi = hiChar.charCodeAt(0);
        if (hi < lo) throw new RegexSyntaxError(`the class range ${c}-${hiChar} is out of order`);
        const [l, h] = [lo, hi];
        tests.push(
          (x) =>
            (x >= l && x <= h) ||
            (lower(x) >= l && lower(x) <= h) ||
            (upper(x) >= l && upper(x) <= h),
        );
      } else {
        const l = lower(lo);
        tests.push((x) => lower(x) === l);
      }
    }
    if (this.src[this.#i] !== "]") throw new RegexSyntaxError('a "[" is never closed');
    this.#i++;
    const any = (x: number) => tests.some((t) => t(x));
    return { t: "char", test: negate ? (x) => !any(x) : any };
  }
}

const upper = (c: number): number => (c >= 97 && c <= 122 ? c - 32 : c);

function literal(code: number): { t: "char"; test: CharTest; lit: number } {
  const l = lower(code);
  return { t: "char", test: (x) => lower(x) === l, lit: l };
}

/** The longest run of literal characters a match must contain: a cheap test before the automaton. */
function requiredLiteral(node: Node): string {
  const items = node.t === "cat" ? node.items : [node];
  let best = "";
  let run = "";
  for (const item of items) {
    if (item.t === "char" && item.lit !== undefined && item.lit < 128) {
      run += String.fromCharCode(item.lit);
      if (run.length > best.length) best = run;
    } else if (item.t !== "assert") run = "";
  }
  return best;
}
