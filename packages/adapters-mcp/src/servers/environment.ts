#!/usr/bin/env node
// Test server that reports the environment it was started with: `get_env` returns the value
// of one variable (or "(unset)"), so a test can see what a host passed on.
import { objectSchema, serveStdio, text, toolServer, unknownTool } from "./internal/serve.js";

await serveStdio(
  toolServer({
    name: "environment",
    list: () => ({
      tools: [
        {
          name: "get_env",
          description: "The value of one environment variable of this server process",
          inputSchema: objectSchema({ name: { type: "string" } }, ["name"]),
        },
      ],
    }),
    call: (name, args) => {
      if (name !== "get_env") return unknownTool(name);
      const value = process.env[String(args.name)];
      return text(value === undefined ? "(unset)" : value);
    },
  }),
);
