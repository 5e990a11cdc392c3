// S1's regular expressions, parsed: the syntax tree of a pattern, the character tests its
// atoms become, and the literal text every match must contain. Syntax it refuses throws
// RegexSyntaxError with the sentence `compileRegex` returns.

export type CharTest = (c: number) => boolean;

export type Node =
  | { t: "char"; test: CharTest; lit?: number }
  | { t: "assert"; kind: "^" | "$" | "b" | "B" }
  | { t: "cat"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "rep"; node: Node; min: number; max: number };

export class RegexSyntaxError extends Error {}

export function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

const lower = (c: number): number =>
  c < 128 ? (c >= 65 && c <= 90 ? c + 32 : c) : String.fromCharCode(c).toLowerCase().charCodeAt(0);
const DIGIT: CharTest = (c) => c >= 48 && c <= 57;
const SPACE: CharTest = (c) => c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0xfeff;
const ANY: CharTest = (c) => c !== 10;

export class Parser {
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
export function requiredLiteral(node: Node): string {
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
