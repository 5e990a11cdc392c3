// Shared builders for the core's tests: states are made the way a host makes them,
// through decide + evolve, never by writing state objects by hand.
import type { Command } from "../decide/command.js";
import { decide } from "../decide/decide.js";
import type { McpTool, ToolledgerEvent } from "../events/events.js";
import { evolve } from "./evolve.js";
import { initialState, type State, type StateOptions } from "./state.js";

export function tool(name: string, extra: Partial<McpTool> = {}): McpTool {
  return { name, inputSchema: { type: "object", properties: {} }, ...extra };
}

export interface Host {
  state: State;
  log: ToolledgerEvent[];
  run(command: Command): ToolledgerEvent[];
  add(name: string, options?: Partial<Extract<Command, { type: "AddExtension" }>>): void;
  fetch(extension: string, tools: (string | McpTool)[]): void;
}

export function host(options: StateOptions = {}): Host {
  const h: Host = {
    state: initialState(options),
    log: [],
    run(command) {
      const decision = decide(h.state, command);
      if (!decision.ok) throw new Error(`${command.type} refused: ${decision.error.message}`);
      for (const e of decision.events) {
        h.state = evolve(h.state, e);
        h.log.push(e);
      }
      return decision.events;
    },
    add(name, options = {}) {
      h.run({
        type: "AddExtension",
        name,
        kind: "stdio",
        configFingerprint: `fp:${name}`,
        ...options,
      });
    },
    fetch(extension, tools) {
      h.run({
        type: "RecordFetch",
        extension,
        startedAtVersion: h.state.version,
        tools: tools.map((t) => (typeof t === "string" ? tool(t) : t)),
      });
    },
  };
  return h;
}
