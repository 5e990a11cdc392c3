import {
  isAppOnly,
  listTools,
  type McpTool,
  modelView,
  type State,
  servedTool,
} from "@toolledger/core";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { lookupSaving } from "./lookupSaving.js";
import { withDeferralLookup } from "./withDeferralLookup.js";

/** The tokenizer behind every figure: OpenAI's o200k_base (GPT-4o, GPT-4.1, o-series), run locally. */
export const TOKENIZER = "o200k_base";

/**
 * What deferral saved at one point (D4): tokens of the tool definitions the model received,
 * and of the definitions it would have received from the same registry with deferral off.
 */
export interface ContextTokens {
  /** Eager tools' definitions (with `enable_tools`) plus the deferred-names prompt section. */
  received: number;
  /** Every model-visible tool's definition: the same registry, deferral off. */
  deferralOff: number;
  /**
   * Set only where deferral is off and the model gets tools: what it would have received with
   * deferral `lookup` (D4, `withDeferralLookup`): always-load schemas, `enable_tools`, the
   * deferred-names section.
   */
  lookup?: number;
}

/**
 * A tool as a host puts it into a model request: name, description and input schema, as
 * compact JSON (the Messages API's `{name, description, input_schema}`). `_meta`, annotations,
 * title and output schema stay with the host.
 */
export function toolDefinitionText(tool: McpTool): string {
  return JSON.stringify({
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: tool.inputSchema ?? { type: "object" },
  });
}

const byTool = new WeakMap<McpTool, number>();
// Refetches bring new objects with the same content; counting a string again costs ~40 µs.
const byText = new Map<string, number>();
const TEXT_CACHE_LIMIT = 20_000;

/** o200k_base tokens of one tool's definition (memoised by object and by content). */
export function toolTokens(tool: McpTool): number {
  const cached = byTool.get(tool);
  if (cached !== undefined) return cached;
  const text = toolDefinitionText(tool);
  let n = byText.get(text);
  if (n === undefined) {
    n = countTokens(text);
    if (byText.size >= TEXT_CACHE_LIMIT) byText.clear();
    byText.set(text, n);
  }
  byTool.set(tool, n);
  return n;
}

let lastPrompt: { text: string; tokens: number } | undefined;

function promptTokens(text: string | null): number {
  if (text === null) return 0;
  if (lastPrompt?.text !== text) lastPrompt = { text, tokens: countTokens(text) };
  return lastPrompt.tokens;
}

/**
 * The figure `tools`, the demo and `view` show: `modelView(state)` measured in tokens, beside
 * every visible, model-facing tool (R8, D3) of the same registry with deferral off.
 */
export function contextTokens(state: State): ContextTokens {
  const received = receivedTokens(state);
  let deferralOff = 0;
  for (const tool of listTools(state))
    if (!isAppOnly(tool)) deferralOff += toolTokens(servedTool(state, tool));
  if (state.deferral.mode !== "off" || deferralOff === 0) return { received, deferralOff };
  return { received, deferralOff, lookup: receivedTokens(withDeferralLookup(state)) };
}

/** Tokens of what `modelView(state)` sends: the full schemas and the deferred-names section. */
function receivedTokens(state: State): number {
  const view = modelView(state);
  let received = promptTokens(view.systemPrompt);
  for (const tool of view.tools) received += toolTokens(tool);
  return received;
}

/**
 * `412 tokens of tool definitions, 2,318 with deferral off (82% saved; o200k_base)`; with
 * deferral off, `2,318 tokens of tool definitions with deferral off; sending 412 would have
 * saved 82% with deferral lookup (o200k_base)`.
 */
export function formatContextTokens(t: ContextTokens): string {
  const n = (x: number) => x.toLocaleString("en-US");
  if (t.lookup !== undefined)
    return `${n(t.deferralOff)} tokens of tool definitions with deferral off; ${lookupSaving(t.deferralOff, t.lookup)} (${TOKENIZER})`;
  if (t.received === t.deferralOff)
    return `${n(t.received)} tokens of tool definitions (${TOKENIZER})`;
  const saved = t.deferralOff === 0 ? 0 : Math.round((1 - t.received / t.deferralOff) * 100);
  return `${n(t.received)} tokens of tool definitions, ${n(t.deferralOff)} with deferral off (${saved >= 0 ? `${saved}% saved` : `${-saved}% more`}; ${TOKENIZER})`;
}
