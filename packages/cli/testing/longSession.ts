import {
  type Command,
  decide,
  evolve,
  initialState,
  listTools,
  type McpTool,
  type State,
  type ToolledgerEvent,
} from "@toolledger/core";
import { seededRandom } from "@toolledger/core/testing/seededRandom";

const EXTENSIONS: { name: string; kind: string; tools: number; hidden?: boolean }[] = [
  { name: "github", kind: "stdio", tools: 26 },
  { name: "filesystem", kind: "stdio", tools: 14 },
  { name: "Web Search", kind: "streamable_http", tools: 4 },
  { name: "notes", kind: "stdio", tools: 6 },
  { name: "calendar", kind: "streamable_http", tools: 9 },
  { name: "jira", kind: "stdio", tools: 22 },
  { name: "slack", kind: "stdio", tools: 12 },
  { name: "postgres", kind: "stdio", tools: 5 },
  { name: "browser", kind: "stdio", tools: 18 },
  { name: "developer", kind: "platform", tools: 4 },
  { name: "_internal", kind: "stdio", tools: 3 },
];

const VERBS = ["list", "get", "create", "update", "delete", "search", "run", "read"];
const NOUNS = [
  "issue",
  "file",
  "page",
  "event",
  "message",
  "table",
  "branch",
  "comment",
  "user",
  "query",
];

function makeTools(ext: number, count: number, generation: number): McpTool[] {
  const tools: McpTool[] = [];
  for (let i = 0; i < count; i++) {
    const verb = VERBS[(i + ext) % VERBS.length]!;
    const noun = NOUNS[(i * 3 + ext) % NOUNS.length]!;
    tools.push({
      name: `${verb}_${noun}${i >= VERBS.length ? `_${i}` : ""}`,
      description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${noun} (revision ${generation}). Returns the ${noun} as JSON with its id, title, owner and timestamps; fails when the ${noun} does not exist or access is denied.`,
      inputSchema: {
        type: "object",
        properties: {
          id: { type: "string", description: `The ${noun} id` },
          limit: { type: "integer", minimum: 1, maximum: 100, description: "Page size" },
          filter: { type: "string", description: "Optional filter expression" },
        },
        required: ["id"],
      },
    });
  }
  return tools;
}

/**
 * A long session a host could have written, `events` long: eleven extensions (one hidden,
 * one platform), deferral on, then list changes with the refetches they cause, stale and
 * failed fetches, enable requests (some failing), compactions, clears and replaced extensions.
 */
export function longSession(events: number, seed = 7): ToolledgerEvent[] {
  const rand = seededRandom(seed);
  const out: ToolledgerEvent[] = [];
  let state: State = initialState();
  const t0 = Date.UTC(2026, 10, 1, 9);
  const run = (command: Command) => {
    if (out.length >= events) return;
    const d = decide(state, { ...command, at: new Date(t0 + out.length * 200).toISOString() });
    if (!d.ok) throw new Error(`${command.type}: ${d.error.message}`);
    for (const e of d.events) {
      if (out.length >= events) return;
      out.push(e);
      state = evolve(state, e);
    }
  };
  const generation = EXTENSIONS.map(() => 0);
  const fetch = (i: number, startedAtVersion = state.version) =>
    run({
      type: "RecordFetch",
      extension: EXTENSIONS[i]!.name,
      startedAtVersion,
      tools: makeTools(i, EXTENSIONS[i]!.tools, generation[i]!),
    });
  run({
    type: "ConfigureDeferral",
    mode: "lookup",
    alwaysLoad: ["github__list_issue", "slack__no_such_tool"],
  });
  for (const x of EXTENSIONS)
    run({ type: "AddExtension", name: x.name, kind: x.kind, configFingerprint: `fp-${x.name}` });
  for (let i = 0; i < EXTENSIONS.length; i++) fetch(i);
  let call = 0;
  while (out.length < events) {
    const r = rand();
    const i = Math.floor(rand() * EXTENSIONS.length);
    const name = EXTENSIONS[i]!.name;
    if (r < 0.55) {
      run({ type: "InvalidateTools", extension: name });
    } else if (r < 0.57) {
      run({ type: "InvalidateTools", extension: name });
      if (rand() < 0.2) generation[i]!++;
      fetch(i);
    } else if (r < 0.575) {
      const started = state.version;
      run({ type: "InvalidateTools", extension: name });
      fetch(i, started);
    } else if (r < 0.58) {
      run({
        type: "RecordFetchFailure",
        extension: name,
        startedAtVersion: state.version,
        error: "connection closed",
      });
      fetch(i);
    } else if (r < 0.995) {
      const tools = listTools(state);
      const pick = tools[Math.floor(rand() * tools.length)]?.publicName;
      const names =
        pick === undefined ? ["nothing__here"] : rand() < 0.08 ? [pick, `${pick}_typo`] : [pick];
      run({ type: "EnableTools", callId: `call-${++call}`, names });
    } else if (r < 0.997) {
      run({ type: "Compact" });
    } else if (r < 0.9985) {
      run({ type: "Clear" });
    } else {
      run({ type: "RemoveExtension", extension: name });
      run({
        type: "AddExtension",
        name,
        kind: EXTENSIONS[i]!.kind,
        configFingerprint: `fp-${name}-${call}`,
      });
      fetch(i);
    }
  }
  if (listTools(state).length === 0) throw new Error("the long session ended with no tools");
  return out;
}
