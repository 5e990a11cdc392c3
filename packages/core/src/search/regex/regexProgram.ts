// S1's compiled program: the syntax tree laid out as instructions of a Thompson/Pike
// automaton (`boundedRegex.ts` runs it), `{n,m}` repetitions expanded up to a fixed size.

import { type CharTest, type Node, RegexSyntaxError } from "./regexParser.js";

/** Largest compiled program (instructions), after `{n,m}` repetitions are expanded. */
export const MAX_REGEX_PROGRAM = 2_000;

export type Inst =
  | { op: "char"; test: CharTest }
  | { op: "split"; x: number; y: number }
  | { op: "jmp"; x: number }
  | { op: "assert"; kind: "^" | "$" | "b" | "B" }
  | { op: "match" };

export function emit(node: Node, out: Inst[]): void {
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
