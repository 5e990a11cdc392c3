import {
  classifyTool,
  type Diagnostic,
  diagnostics,
  listTools,
  type RegisteredTool,
  type State,
  staleExtensions,
} from "@toolledger/core";
import { extensionKeys, getExtension } from "../session/stateExtensions.js";
import { formatTable } from "./formatTable.js";
import { isWarning } from "./isWarning.js";
import type { Style } from "./style.js";

/** A registered tool with its class in the model view (D3/D4), as the CLI prints it. */
export interface ToolRow {
  name: string;
  /** R14: the name models are served, when it differs from the public name. */
  wireName?: string;
  extension: string;
  rawName: string;
  class: string;
  reason?: string;
}

export function toolRow(state: State, t: RegisteredTool): ToolRow {
  const c = classifyTool(state, t);
  return {
    name: t.publicName,
    // R14: only when models are served another name, so rows of logs without one are unchanged.
    ...(t.wireName === t.publicName ? {} : { wireName: t.wireName }),
    extension: t.owner,
    rawName: t.rawName,
    class: c.class,
    ...(c.reason === undefined ? {} : { reason: c.reason }),
  };
}

export interface StateSummary {
  version: number;
  deferral: { mode: string; alwaysLoad: string[] };
  extensions: {
    key: string;
    name: string;
    kind: string;
    hidden: boolean;
    fetch: string;
    tools: number;
    stale: boolean;
  }[];
  tools: ToolRow[];
  enabled: string[];
  pending: { callId: string; names: string[] }[];
  staleExtensions: string[];
  diagnostics: Diagnostic[];
  /** Hidden extensions and tools left out (R8), when not asked for. */
  hiddenOmitted: { extensions: number; tools: number };
}

/** E3, in a form for people and for `--json`: extensions, tools with their class, enabled set, diagnostics. */
export function summarizeState(
  state: State,
  options: { includeHidden?: boolean } = {},
): StateSummary {
  const stale = new Set(staleExtensions(state));
  const includeHidden = options.includeHidden ?? false;
  const all = listTools(state, { includeHidden: true });
  const visible = includeHidden ? all : listTools(state);
  const extensions = extensionKeys(state).filter(
    (key) => includeHidden || !getExtension(state, key)!.hidden,
  );
  return {
    version: state.version,
    deferral: { mode: state.deferral.mode, alwaysLoad: [...state.deferral.alwaysLoad] },
    extensions: extensions.map((key) => {
      const e = getExtension(state, key)!;
      return {
        key,
        name: e.name,
        kind: e.kind,
        hidden: e.hidden,
        fetch: e.fetch.status,
        tools: e.tools.length,
        stale: stale.has(key),
      };
    }),
    tools: visible.map((t) => toolRow(state, t)),
    enabled: [...state.enabled],
    pending: state.pending.map((p) => ({ callId: p.callId, names: [...p.names] })),
    staleExtensions: [...stale],
    // R8/R10: a diagnostic that names a hidden extension only with --include-hidden.
    diagnostics: diagnostics(state, { includeHidden }),
    hiddenOmitted: {
      extensions: extensionKeys(state).length - extensions.length,
      tools: all.length - visible.length,
    },
  };
}

export function formatStateSummary(s: StateSummary, style: Style): string {
  const out: string[] = [];
  out.push(
    `${style.bold("version")} ${s.version}   ${style.bold("deferral")} ${s.deferral.mode}${s.deferral.alwaysLoad.length > 0 ? ` (always load: ${s.deferral.alwaysLoad.join(", ")})` : ""}`,
  );
  out.push("");
  if (s.extensions.length === 0) out.push("no extensions");
  else {
    out.push(
      formatTable(
        s.extensions.map((e) => [
          e.key,
          e.kind,
          e.fetch + (e.stale ? " (stale)" : ""),
          String(e.tools),
          e.hidden ? "hidden" : "",
        ]),
        {
          header: ["EXTENSION", "KIND", "FETCH", "TOOLS", ""],
          right: [3],
          styleHeader: style.bold,
        },
      ).trimEnd(),
    );
  }
  if (s.tools.length > 0) {
    out.push("");
    out.push(
      formatTable(
        s.tools.map((t) => [t.name, t.extension, classLabel(t.class, t.reason, style)]),
        { header: ["TOOL", "EXTENSION", "CLASS"], styleHeader: style.bold },
      ).trimEnd(),
    );
  }
  if (s.hiddenOmitted.extensions > 0) {
    out.push(
      style.dim(
        `(${s.hiddenOmitted.extensions} hidden extension(s) with ${s.hiddenOmitted.tools} tool(s) not shown, R8; --include-hidden shows them)`,
      ),
    );
  }
  out.push("");
  out.push(`${style.bold("enabled")} ${s.enabled.length > 0 ? s.enabled.join(", ") : "none"}`);
  if (s.pending.length > 0) {
    out.push(
      `${style.bold("pending")} ${s.pending.map((p) => `${p.callId} (${p.names.join(", ")})`).join("; ")}`,
    );
  }
  if (s.staleExtensions.length > 0)
    out.push(`${style.bold("stale")} ${s.staleExtensions.join(", ")} (need fetching, R11)`);
  const failedEnables = s.diagnostics.filter(
    (d) => d.kind === "anomaly" && d.anomaly === "failed_response",
  ).length;
  if (failedEnables > 0)
    out.push(
      `${style.bold("failed enables")} ${failedEnables} (the model named tools it could not enable; see audit)`,
    );
  const shown = s.diagnostics.filter(
    (d) => d.kind !== "anomaly" || d.anomaly !== "failed_response",
  );
  if (shown.length > 0) {
    out.push("", style.bold("diagnostics"));
    for (const d of shown)
      out.push(
        isWarning(d) ? `  ${style.yellow("!")} ${d.message}` : `  ${style.dim(`· ${d.message}`)}`,
      );
  }
  return `${out.join("\n")}\n`;
}

export function classLabel(cls: string, reason: string | undefined, style: Style): string {
  switch (cls) {
    case "eager":
      return style.green(reason && reason !== "deferral-off" ? `eager (${reason})` : "eager");
    case "deferred":
      return style.yellow("deferred");
    case "app-only":
      return style.dim("app-only");
    case "hidden":
      return style.dim("hidden");
    default:
      return cls;
  }
}
