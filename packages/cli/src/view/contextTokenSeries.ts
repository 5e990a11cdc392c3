import {
  type Command,
  collisionOwners,
  compareBytes,
  decide,
  ENABLE_TOOLS_NAME,
  ENABLE_TOOLS_TOOL,
  type ExtensionState,
  evolve,
  findTool,
  getExtension,
  initialState,
  isAppOnly,
  listExtensions,
  modelView,
  type RegisteredTool,
  type State,
  servedTool,
} from "@toolledger/core";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { type ContextTokens, toolTokens } from "../output/contextTokens.js";
import { withDeferralLookup } from "../output/withDeferralLookup.js";
import type { TokenPoint } from "./viewData.js";

/** One model-facing tool of an extension: its definition's tokens and its prompt line's. */
interface Entry {
  name: string;
  /** The name the model is served (R14), the one its prompt line shows. */
  wire: string;
  tokens: number;
  /** Tokens of `- name\n`, its line in the deferred-names prompt section (D4). */
  line: number;
}

interface ExtensionSums {
  /** Non-app-only tools (D3), by public name. */
  byName: Map<string, Entry>;
  /** Their entries by served name, byte-wise descending (the prompt's last line is the greatest deferred name). */
  descending: Entry[];
  tokens: number;
  lines: number;
}

const lineCache = new Map<string, number>();
function lineTokens(name: string): number {
  let n = lineCache.get(name);
  if (n === undefined) {
    n = countTokens(`- ${name}\n`);
    if (lineCache.size > 50_000) lineCache.clear();
    lineCache.set(name, n);
  }
  return n;
}

/** Tokens of the prompt section's text before its first name, read off the core's own model view. */
const promptHead: number = (() => {
  let state = initialState();
  const commands: Command[] = [
    { type: "ConfigureDeferral", mode: "lookup", alwaysLoad: [] },
    { type: "AddExtension", name: "x", kind: "stdio", configFingerprint: "x" },
    {
      type: "RecordFetch",
      extension: "x",
      startedAtVersion: 1,
      tools: [{ name: "t", inputSchema: { type: "object" } }],
    },
  ];
  for (const command of commands) {
    const d = decide(state, command);
    if (!d.ok) throw new Error(d.error.message);
    state = d.events.reduce(evolve, state);
  }
  const prompt = modelView(state).systemPrompt!;
  return countTokens(prompt.slice(0, prompt.lastIndexOf("- x__t")));
})();
const enableToolsTokens = toolTokens(ENABLE_TOOLS_TOOL);

const sums = new WeakMap<readonly RegisteredTool[], ExtensionSums>();
function extensionSums(state: State, ext: ExtensionState): ExtensionSums {
  let s = sums.get(ext.tools);
  if (s) return s;
  s = { byName: new Map(), descending: [], tokens: 0, lines: 0 };
  for (const t of ext.tools) {
    if (isAppOnly(t)) continue;
    const entry = {
      name: t.publicName,
      wire: t.wireName,
      // What the model is served: the definition under its wire name (R14).
      tokens: toolTokens(servedTool(state, t)),
      line: lineTokens(t.wireName),
    };
    s.byName.set(t.publicName, entry);
    s.tokens += entry.tokens;
    s.lines += entry.line;
  }
  s.descending = [...s.byName.values()].sort((a, b) => compareBytes(b.wire, a.wire));
  sums.set(ext.tools, s);
  return s;
}

/** The model-facing winner of `name` (R10, R8, D3) and its extension, if any. */
function winner(state: State, name: string): { ext: ExtensionState; entry: Entry } | undefined {
  const owners = collisionOwners(state, name);
  let ext: ExtensionState | undefined;
  if (owners) ext = getExtension(state, owners[0]!);
  else {
    for (let i = name.indexOf("__"); i !== -1 && !ext; i = name.indexOf("__", i + 1)) {
      const key = name.slice(0, i);
      const e = getExtension(state, key);
      if (e && e.key === key && !e.exposeUnprefixed && findTool(e, name)) ext = e;
    }
    for (const key of state.unprefixed) {
      if (ext) break;
      const e = getExtension(state, key);
      if (e && findTool(e, name)) ext = e;
    }
  }
  if (!ext || ext.hidden) return undefined;
  const entry = extensionSums(state, ext).byName.get(name);
  return entry ? { ext, entry } : undefined;
}

/**
 * `contextTokens(state)` without listing or classifying every tool: sums kept per
 * extension's tool list, corrected for collision losers (R10), then the eager names (D4:
 * platform, always-load, enabled). The deferred-names section is counted line by line (its
 * lines tokenize independently: each ends in a newline that no token crosses). A property
 * test holds it equal to `contextTokens` on arbitrary registries.
 */
export function countContextTokens(state: State): ContextTokens {
  const visible = listExtensions(state).filter((e) => !e.hidden);
  let all = 0;
  let allLines = 0;
  let count = 0;
  let eager = 0;
  let eagerLines = 0;
  let eagerCount = 0;
  const losers = new Set<string>();
  for (const [name, owners] of Object.entries(state.collisions)) {
    for (const key of owners.slice(1)) {
      const ext = getExtension(state, key);
      const entry = ext && !ext.hidden ? extensionSums(state, ext).byName.get(name) : undefined;
      if (!entry) continue;
      losers.add(`${key}\n${name}`);
      all -= entry.tokens;
      allLines -= entry.line;
      count--;
      if (ext!.kind === "platform") {
        eager -= entry.tokens;
        eagerLines -= entry.line;
        eagerCount--;
      }
    }
  }
  for (const ext of visible) {
    const s = extensionSums(state, ext);
    all += s.tokens;
    allLines += s.lines;
    count += s.byName.size;
    if (ext.kind === "platform") {
      eager += s.tokens;
      eagerLines += s.lines;
      eagerCount += s.byName.size;
    }
  }
  if (state.deferral.mode === "off") {
    if (all === 0) return { received: all, deferralOff: all };
    // What deferral lookup would have sent from the same registry (contextTokens' `lookup`).
    return {
      received: all,
      deferralOff: all,
      lookup: countContextTokens(withDeferralLookup(state)).received,
    };
  }
  const eagerNames = new Set<string>();
  for (const name of [...state.deferral.alwaysLoad, ...state.enabled]) {
    if (eagerNames.has(name)) continue;
    const w = winner(state, name);
    if (!w) continue;
    eagerNames.add(name);
    if (w.ext.kind === "platform") continue;
    eager += w.entry.tokens;
    eagerLines += w.entry.line;
    eagerCount++;
  }
  let deferredLines = allLines - eagerLines;
  let deferredCount = count - eagerCount;
  const isEager = (ext: ExtensionState, name: string) =>
    ext.kind === "platform" || eagerNames.has(name);
  // D4: the built-in enable_tools takes its name from a registry tool, eager or deferred.
  const shadowed = winner(state, ENABLE_TOOLS_NAME);
  if (shadowed) {
    if (isEager(shadowed.ext, ENABLE_TOOLS_NAME)) eager -= shadowed.entry.tokens;
    else {
      deferredLines -= shadowed.entry.line;
      deferredCount--;
    }
  }
  let prompt = 0;
  if (deferredCount > 0) {
    // The section lists served names (R14), sorted: the last line is the greatest one.
    let last: string | undefined;
    for (const ext of visible) {
      for (const { name, wire } of extensionSums(state, ext).descending) {
        if (last !== undefined && compareBytes(wire, last) <= 0) break;
        if (isEager(ext, name) || losers.has(`${ext.key}\n${name}`)) continue;
        if (name === ENABLE_TOOLS_NAME && shadowed) continue;
        last = wire;
        break;
      }
    }
    // The last line has no newline after it.
    prompt = promptHead + deferredLines - lineTokens(last!) + countTokens(`- ${last}`);
  }
  return { received: eager + enableToolsTokens + prompt, deferralOff: all };
}

/**
 * The token figure over a session, kept only where it changes. The figure depends on the
 * model view's inputs alone (extensions, collisions, deferral, enabled set): states that
 * share all four by identity are not measured again, so calls, invalidations and stale
 * fetches cost nothing here.
 */
export class ContextTokenSeries {
  readonly points: TokenPoint[] = [];
  private last: State | undefined;

  /** Records the figure of `state`, the state after the first `count` steps. */
  add(count: number, state: State): void {
    const last = this.last;
    this.last = state;
    if (
      last !== undefined &&
      last.extensions === state.extensions &&
      last.collisions === state.collisions &&
      last.deferral === state.deferral &&
      last.enabled === state.enabled
    )
      return;
    const t = countContextTokens(state);
    const prev = this.points.at(-1);
    if (prev && prev[1] === t.received && prev[2] === t.deferralOff && prev[3] === t.lookup) return;
    this.points.push(
      t.lookup === undefined
        ? [count, t.received, t.deferralOff]
        : [count, t.received, t.deferralOff, t.lookup],
    );
  }
}
