import { z } from "zod";

/** A JSON Schema (any object); the MCP SDK asserts no more about a property's schema. */
const SchemaObject = z.custom<Record<string, unknown>>(
  (v) => typeof v === "object" && v !== null,
  "expected a JSON Schema object",
);

/** `inputSchema` / `outputSchema`: a JSON Schema whose root is `"type": "object"`. */
const ObjectSchema = z.looseObject({
  type: z.literal("object"),
  properties: z.record(z.string(), SchemaObject).optional(),
  required: z.array(z.string()).optional(),
});

/**
 * An MCP `Tool` as the specification defines it (and the MCP SDK's `ToolSchema` checks it:
 * a test in adapters-mcp keeps them in step). A listed tool that fails it is never served:
 * one such tool in a `tools/list` result makes SDK clients reject the whole list (R9).
 */
export const McpToolDefinitionSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  icons: z
    .array(
      z.object({
        src: z.string(),
        mimeType: z.string().optional(),
        sizes: z.array(z.string()).optional(),
        theme: z.enum(["light", "dark"]).optional(),
      }),
    )
    .optional(),
  description: z.string().optional(),
  inputSchema: ObjectSchema,
  outputSchema: ObjectSchema.optional(),
  annotations: z
    .object({
      title: z.string().optional(),
      readOnlyHint: z.boolean().optional(),
      destructiveHint: z.boolean().optional(),
      idempotentHint: z.boolean().optional(),
      openWorldHint: z.boolean().optional(),
    })
    .optional(),
  execution: z
    .object({ taskSupport: z.enum(["required", "optional", "forbidden"]).optional() })
    .optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});
export type McpToolDefinition = z.infer<typeof McpToolDefinitionSchema>;

/**
 * Why `tool` is not a valid MCP tool definition (`inputSchema.type: …`), or null when it is.
 * Registration runs this for every listed tool on every fetch, so the answer comes from a
 * hand-written check that accepts exactly what the schema accepts (property-tested); the
 * schema only words the reason.
 */
export function mcpToolProblem(tool: unknown): string | null {
  if (isMcpToolDefinition(tool)) return null;
  const parsed = McpToolDefinitionSchema.safeParse(tool);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.map(String).join(".");
  return `${path || "tool"}: ${issue.message}`;
}

const TASK_SUPPORT: ReadonlySet<unknown> = new Set(["required", "optional", "forbidden"]);
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/** The schema's verdict without zod. */
export function isMcpToolDefinition(value: unknown): boolean {
  if (!isObject(value)) return false;
  const t = value as Record<string, unknown>;
  if (typeof t.name !== "string") return false;
  if (!optionalString(t.title) || !optionalString(t.description)) return false;
  if (!isObjectSchema(t.inputSchema)) return false;
  if (t.outputSchema !== undefined && !isObjectSchema(t.outputSchema)) return false;
  if (t.annotations !== undefined) {
    if (!isObject(t.annotations)) return false;
    const a = t.annotations as Record<string, unknown>;
    if (!optionalString(a.title)) return false;
    for (const hint of HINTS)
      if (a[hint] !== undefined && typeof a[hint] !== "boolean") return false;
  }
  if (t.execution !== undefined) {
    if (!isObject(t.execution)) return false;
    const support = (t.execution as Record<string, unknown>).taskSupport;
    if (support !== undefined && !TASK_SUPPORT.has(support)) return false;
  }
  if (t.icons !== undefined && !isIcons(t.icons)) return false;
  if (t._meta !== undefined && !isRecord(t._meta)) return false;
  return true;
}

function isObjectSchema(value: unknown): boolean {
  if (!isObject(value)) return false;
  const s = value as Record<string, unknown>;
  if (s.type !== "object") return false;
  if (s.properties !== undefined) {
    if (!isRecord(s.properties)) return false;
    const props = s.properties as Record<string, unknown>;
    for (const key of Object.keys(props)) {
      // zod's record skips a `__proto__` key; so does this check, to agree with it.
      if (key === "__proto__") continue;
      const p = props[key];
      if (typeof p !== "object" || p === null) return false;
    }
  }
  if (s.required !== undefined && !isStringArray(s.required)) return false;
  return true;
}

function isIcons(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const icon = value[i];
    if (!isObject(icon)) return false;
    const { src, mimeType, sizes, theme } = icon as Record<string, unknown>;
    if (typeof src !== "string" || !optionalString(mimeType)) return false;
    if (sizes !== undefined && !isStringArray(sizes)) return false;
    if (theme !== undefined && theme !== "light" && theme !== "dark") return false;
  }
  return true;
}

function isStringArray(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== "string") return false;
  return true;
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === "string";
}

/** What z.object accepts: any non-array object. */
function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What z.record accepts: a plain object. */
function isRecord(value: unknown): boolean {
  if (!isObject(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
