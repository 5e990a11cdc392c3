#!/usr/bin/env node
// Test server: lists every malformed tool shape an SDK client rejects (issue 10.3) next to
// two good tools. `--only-good` lists the good ones alone.
import {
  hasFlag,
  objectSchema,
  type RawTool,
  serveStdio,
  text,
  toolServer,
  unknownTool,
} from "./internal/serve.js";

const good: RawTool[] = [
  {
    name: "echo",
    description: "Echoes text",
    inputSchema: objectSchema({ text: { type: "string" } }),
  },
  {
    name: "add",
    description: "Adds two numbers",
    inputSchema: objectSchema({ a: { type: "number" }, b: { type: "number" } }, ["a", "b"]),
    annotations: { readOnlyHint: true },
  },
];

/** Each shape the MCP Tool schema refuses, named after what is wrong with it. */
const MALFORMED: RawTool[] = [
  { name: "empty_schema", inputSchema: {} },
  { name: "untyped_schema", inputSchema: { properties: {} } },
  { name: "array_schema", inputSchema: { type: "array", items: { type: "string" } } },
  { name: "string_annotations", inputSchema: objectSchema(), annotations: "yes" },
  { name: "string_hint", inputSchema: objectSchema(), annotations: { readOnlyHint: "yes" } },
  { name: "null_property", inputSchema: { type: "object", properties: { a: null } } },
  { name: "required_string", inputSchema: { type: "object", required: "a" } },
  { name: "string_output", inputSchema: objectSchema(), outputSchema: { type: "string" } },
  { name: "bad_icon", inputSchema: objectSchema(), icons: [{ mimeType: "image/png" }] },
  { name: "bad_execution", inputSchema: objectSchema(), execution: { taskSupport: "sometimes" } },
  { name: "no_schema", description: "has no inputSchema" },
];

const tools = hasFlag("only-good") ? good : [good[0]!, ...MALFORMED, good[1]!];

await serveStdio(
  toolServer({
    name: "malformed",
    list: () => ({ tools }),
    call: (name, args) => {
      if (name === "echo") return text(String(args.text ?? ""));
      if (name === "add") return text(String(Number(args.a) + Number(args.b)));
      return unknownTool(name);
    },
  }),
);
