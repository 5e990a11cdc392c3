#!/usr/bin/env node
import { McpServer } from "@modelcontextprotocol/server";
// Example server: arithmetic, unit conversion and clocks that really compute something.
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const server = new McpServer({ name: "calculator", version: "0.1.0" });
const reply = (text: string) => ({ content: [{ type: "text" as const, text }] });
const fail = (text: string) => ({ content: [{ type: "text" as const, text }], isError: true });

server.registerTool(
  "calculate",
  {
    description:
      "Evaluate an arithmetic expression with + - * / ^ %, parentheses and decimals, e.g. (2 + 3) * 4.5",
    inputSchema: z.object({ expression: z.string().min(1) }),
  },
  ({ expression }) => {
    try {
      return reply(`${expression} = ${evaluate(expression)}`);
    } catch (error) {
      return fail(`cannot evaluate ${JSON.stringify(expression)}: ${(error as Error).message}`);
    }
  },
);

const toMetres: Record<string, number> = {
  mm: 0.001,
  cm: 0.01,
  m: 1,
  km: 1000,
  in: 0.0254,
  ft: 0.3048,
  yd: 0.9144,
  mi: 1609.344,
};
const toKg: Record<string, number> = { g: 0.001, kg: 1, lb: 0.45359237, oz: 0.028349523125 };
server.registerTool(
  "convert_units",
  {
    description: `Convert a value between units. Lengths: ${Object.keys(toMetres).join(", ")}; masses: ${Object.keys(toKg).join(", ")}; temperatures: C, F, K.`,
    inputSchema: z.object({ value: z.number(), from: z.string(), to: z.string() }),
  },
  ({ value, from, to }) => {
    const result = convert(value, from, to);
    return result === null
      ? fail(`cannot convert ${from} to ${to}: use two units of the same kind`)
      : reply(`${value} ${from} = ${round(result)} ${to}`);
  },
);
server.registerTool(
  "current_time",
  {
    description: "The current date and time in an IANA time zone (default UTC).",
    inputSchema: z.object({ timeZone: z.string().optional() }),
  },
  ({ timeZone }) => {
    try {
      const zone = timeZone ?? "UTC";
      return reply(
        `${new Date().toLocaleString("en-GB", { timeZone: zone, dateStyle: "full", timeStyle: "long" })} (${zone})`,
      );
    } catch {
      return fail(
        `unknown time zone ${JSON.stringify(timeZone)}; use an IANA name such as Europe/Paris`,
      );
    }
  },
);
server.registerTool(
  "statistics",
  {
    description: "Count, sum, mean, median, min and max of a list of numbers.",
    inputSchema: z.object({ numbers: z.array(z.number()).min(1) }),
  },
  ({ numbers }) => {
    const sorted = [...numbers].sort((a, b) => a - b);
    const sum = numbers.reduce((a, b) => a + b, 0);
    const mid = Math.floor(sorted.length / 2);
    const median = sorted.length % 2 === 0 ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[mid]!;
    return reply(
      JSON.stringify({
        count: numbers.length,
        sum: round(sum),
        mean: round(sum / numbers.length),
        median,
        min: sorted[0],
        max: sorted.at(-1),
      }),
    );
  },
);

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

function convert(value: number, from: string, to: string): number | null {
  const temps = ["C", "F", "K"];
  if (temps.includes(from) && temps.includes(to)) {
    const c = from === "C" ? value : from === "F" ? ((value - 32) * 5) / 9 : value - 273.15;
    return to === "C" ? c : to === "F" ? (c * 9) / 5 + 32 : c + 273.15;
  }
  for (const table of [toMetres, toKg]) {
    const f = table[from];
    const t = table[to];
    if (f !== undefined && t !== undefined) return (value * f) / t;
  }
  return null;
}

/** A small recursive-descent parser: no eval. */
function evaluate(source: string): number {
  const tokens = source.match(/\d+(?:\.\d+)?|[-+*/^%()]|\S/g) ?? [];
  let i = 0;
  const peek = () => tokens[i];
  const next = () => tokens[i++];
  const primary = (): number => {
    const t = next();
    if (t === undefined) throw new Error("unexpected end");
    if (t === "(") {
      const v = sum();
      if (next() !== ")") throw new Error("missing )");
      return v;
    }
    if (t === "-") return -power();
    if (/^\d/.test(t)) return Number(t);
    throw new Error(`unexpected ${JSON.stringify(t)}`);
  };
  const power = (): number => {
    const base = primary();
    if (peek() === "^") {
      next();
      return base ** power();
    }
    return base;
  };
  const product = (): number => {
    let v = power();
    for (let op = peek(); op === "*" || op === "/" || op === "%"; op = peek()) {
      next();
      const r = power();
      if (op !== "*" && r === 0) throw new Error("division by zero");
      v = op === "*" ? v * r : op === "/" ? v / r : v % r;
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    for (let op = peek(); op === "+" || op === "-"; op = peek()) {
      next();
      v = op === "+" ? v + product() : v - product();
    }
    return v;
  };
  const value = sum();
  if (i < tokens.length) throw new Error(`unexpected ${JSON.stringify(tokens[i])}`);
  return round(value);
}

await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
