/**
 * One line of the table. `ratio` is toolledger / baseline for the unit shown; the target
 * says which side of it passes.
 */
export interface BenchResult {
  /** Benchmark number and letter, e.g. "1", "3b". */
  id: string;
  name: string;
  unit: string;
  toolledger: number | null;
  baseline: number | null;
  /** What the baseline is, in a few words. */
  baselineName: string;
  ratio: number | null;
  target: Target | null;
  status: "pass" | "miss" | "report" | "not run";
  /** Why it did not run, or what else is worth knowing about the numbers. */
  note: string;
  /** Raw samples and extra figures for results.json. */
  details?: Record<string, unknown>;
  /** The machine's 1-minute load average when this benchmark started and ended (it is shared). */
  loadAverage?: { before: number; after: number };
}

/** `ratio <= value` ("at most") or `ratio >= value` ("at least"); with `absolute`, the toolledger figure itself in its unit. */
export interface Target {
  op: "<=" | ">=" | "<";
  value: number;
  absolute?: boolean;
}

export function judge(
  ratio: number | null,
  target: Target | null,
  value: number | null = null,
): BenchResult["status"] {
  if (target?.absolute) ratio = value;
  if (target === null || ratio === null) return "report";
  const ok =
    target.op === "<="
      ? ratio <= target.value
      : target.op === "<"
        ? ratio < target.value
        : ratio >= target.value;
  return ok ? "pass" : "miss";
}

export interface ResultInput {
  id: string;
  name: string;
  unit: string;
  toolledger: number;
  baseline: number;
  baselineName: string;
  target?: Target;
  note?: string;
  details?: Record<string, unknown>;
}

/** A measured result; the ratio is toolledger / baseline. */
export function measured(input: ResultInput): BenchResult {
  const ratio = input.baseline === 0 ? null : input.toolledger / input.baseline;
  const target = input.target ?? null;
  return {
    id: input.id,
    name: input.name,
    unit: input.unit,
    toolledger: input.toolledger,
    baseline: input.baseline,
    baselineName: input.baselineName,
    ratio,
    target,
    status: judge(ratio, target, input.toolledger),
    note: input.note ?? "",
    ...(input.details === undefined ? {} : { details: input.details }),
  };
}

/** A benchmark that could not run here, with the reason (an install or runtime error). */
export function notRun(
  id: string,
  name: string,
  baselineName: string,
  reason: string,
  target?: Target,
): BenchResult {
  return {
    id,
    name,
    unit: "",
    toolledger: null,
    baseline: null,
    baselineName,
    ratio: null,
    target: target ?? null,
    status: "not run",
    note: reason,
  };
}

/** First line of an error's message, for the table. */
export function errorLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split("\n")[0]!.slice(0, 300);
}
