import { createHash } from "node:crypto";
import { nameToKey } from "@toolledger/core";
import { servedUnprefixed } from "./gooseToolName.js";

/** One `ExtensionConfig` of goose's enabled-extensions state, as the ledger records it (R6). */
export interface GooseExtension {
  key: string;
  name: string;
  /** goose's `type` tag: stdio, builtin, platform, streamable_http, sse, frontend, inline_python. */
  kind: string;
  availableTools: string[];
  /** R3: goose serves its tools unprefixed (a platform extension such as `developer`). */
  exposeUnprefixed: boolean;
  /** R6: a digest of the whole config; env and header values enter it only hashed. */
  configFingerprint: string;
}

/**
 * The `enabled_extensions.v0` state of a session's `extension_data` (block/goose
 * session/extension_data.rs `EnabledExtensionsState { extensions: Vec<ExtensionConfig> }`,
 * ExtensionConfig tagged by `type`, with `name`, `available_tools`, `envs`, `headers`, …).
 * A snapshot goose rewrites whenever the set changes: which extensions were on, not when.
 */
export function enabledExtensions(extensionData: Record<string, unknown>): GooseExtension[] {
  const state = extensionData["enabled_extensions.v0"];
  const list =
    state &&
    typeof state === "object" &&
    Array.isArray((state as { extensions?: unknown }).extensions)
      ? ((state as { extensions: unknown[] }).extensions ?? [])
      : [];
  const out: GooseExtension[] = [];
  for (const raw of list) {
    const e = toExtension(raw);
    if (e && !out.some((o) => o.key === e.key)) out.push(e);
  }
  return out;
}

export function toExtension(raw: unknown): GooseExtension | null {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
  const c = raw as Record<string, unknown>;
  if (typeof c.name !== "string" || nameToKey(c.name) === "") return null;
  const key = nameToKey(c.name);
  const kind = typeof c.type === "string" && c.type !== "" ? c.type : "unknown";
  return {
    key,
    name: c.name,
    kind,
    availableTools: Array.isArray(c.available_tools)
      ? c.available_tools.filter((t): t is string => typeof t === "string")
      : [],
    exposeUnprefixed: servedUnprefixed(kind, key),
    configFingerprint: fingerprint(c),
  };
}

/** An extension the session used that its enabled-extensions state does not hold. */
export function unlistedExtension(key: string, kind: string): GooseExtension {
  return {
    key,
    name: key,
    kind,
    availableTools: [],
    exposeUnprefixed: servedUnprefixed(kind, key),
    configFingerprint: `goose-import:${key}`,
  };
}

function fingerprint(config: Record<string, unknown>): string {
  const hashed: Record<string, unknown> = { ...config };
  for (const secretMap of ["envs", "headers", "env"]) {
    const m = config[secretMap];
    if (m && typeof m === "object" && !Array.isArray(m)) {
      hashed[secretMap] = Object.fromEntries(
        Object.entries(m as Record<string, unknown>).map(([k, val]) => [k, sha256(String(val))]),
      );
    }
  }
  return `sha256:${sha256(canonical(hashed))}`;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}
