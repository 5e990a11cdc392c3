import type { Style } from "../output/style.js";

/** ok: fine; warn: works, but will bite; fail: does not work; skip: not checked, and why. */
export type FindingStatus = "ok" | "warn" | "fail" | "skip";

/** One line of `toolledger doctor`: what was checked, what was found, what to do. */
export interface DoctorFinding {
  check: "node" | "sqlite" | "database" | "host" | "server" | "oauth";
  /** What was checked: a file, a host, a server. */
  subject: string;
  status: FindingStatus;
  /** What was found, one line, never a secret. */
  message: string;
  /** What to do about it; absent when there is nothing to do. */
  fix?: string;
  /** How long the check took, where that is what a user wants to know (a server's start). */
  ms?: number;
}

const MARKS: Record<FindingStatus, string> = { ok: "ok", warn: "warn", fail: "FAIL", skip: "skip" };

/** `FAIL  server  cursor/github: … → what to do`, coloured by status on a terminal. */
export function formatFinding(finding: DoctorFinding, style: Style): string {
  const colour =
    finding.status === "ok"
      ? style.green
      : finding.status === "warn"
        ? style.yellow
        : finding.status === "fail"
          ? style.red
          : style.dim;
  const mark = colour(MARKS[finding.status].padEnd(4));
  const fix = finding.fix === undefined ? "" : ` ${style.dim("→")} ${finding.fix}`;
  const message = finding.message.replace(/\s*\n\s*/g, "; ");
  return `${mark}  ${finding.check.padEnd(8)}  ${finding.subject}: ${message}${fix}`;
}
