import { getExtension, type McpTool, type State } from "@toolledger/core";
import type { GooseExtension } from "./gooseExtensions.js";
import type { Fact } from "./gooseFact.js";
import { digest } from "./scanGooseSession.js";

const v = 1 as const;

/** An extension of the session as `ExtensionAdded` on the registry stream. */
export function extensionAdded(
  ext: GooseExtension,
  at: string,
  kind: Fact["kind"],
  note: string | undefined,
  key = `ext:${ext.key}`,
): Fact {
  return {
    key,
    stream: "registry",
    kind,
    ...(note === undefined ? {} : { note }),
    build: () => ({
      type: "ExtensionAdded",
      v,
      at,
      name: ext.name,
      kind: ext.kind,
      exposeUnprefixed: ext.exposeUnprefixed,
      hidden: false,
      availableTools: ext.availableTools,
      configFingerprint: ext.configFingerprint,
    }),
  };
}

/**
 * An extension's tools as `ToolsFetched`: those of goose's request log, and the ones the
 * session called that the log does not list (synthesised: goose stores no tool lists).
 */
export function toolsFetched(
  key: string,
  at: string,
  usedTools: ReadonlyMap<string, ReadonlySet<string>>,
  logged: ReadonlyMap<string, readonly McpTool[]>,
  keyPrefix = "tools",
): Fact {
  const fromLog = logged.get(key) ?? [];
  const names = [...(usedTools.get(key) ?? [])]
    .filter((n) => !fromLog.some((t) => t.name === n))
    .sort();
  const tools: McpTool[] = [
    ...fromLog,
    ...names.map((name) => ({
      name,
      description:
        "(synthesised by toolledger: goose does not store tool lists; this session called it)",
      inputSchema: { type: "object" },
    })),
  ];
  const kind: Fact["kind"] = names.length === 0 && fromLog.length > 0 ? "inferred" : "synthetic";
  return {
    key: `${keyPrefix}:${key}:${digest(tools.map((t) => t.name).join("\n"))}`,
    stream: "registry",
    kind,
    note:
      kind === "inferred"
        ? "the tools goose sent the model, from its request log"
        : "goose does not store tool lists: the tools this session called" +
          (fromLog.length > 0 ? ", with those of its request log" : ""),
    build: (ctx) =>
      tools.length === 0 || getExtension(ctx.state, key) === undefined
        ? null
        : {
            type: "ToolsFetched",
            v,
            at,
            extension: key,
            startedAtVersion: ctx.state.version,
            tools,
          },
  };
}

/** The public names of the builtin extensions' tools (they stay eager under deferral, as in goose). */
export function builtinToolNames(state: State, exts: readonly GooseExtension[]): string[] {
  const builtin = new Set(exts.filter((e) => e.kind === "builtin").map((e) => e.key));
  const names: string[] = [];
  for (const key of builtin) {
    const ext = getExtension(state, key);
    for (const t of ext?.tools ?? []) names.push(t.publicName);
  }
  return names.sort();
}
