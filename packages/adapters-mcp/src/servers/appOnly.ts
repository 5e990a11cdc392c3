#!/usr/bin/env node
// Test server with one app-only tool (D3: _meta.ui.visibility without "model").
import { objectSchema, serveStdio, text, toolServer, unknownTool } from "./internal/serve.js";

await serveStdio(
  toolServer({
    name: "app-only",
    list: () => ({
      tools: [
        { name: "get_data", description: "Returns the data", inputSchema: objectSchema() },
        {
          name: "render_chart",
          description: "Renders a chart in the host's UI",
          inputSchema: objectSchema(),
          _meta: { ui: { visibility: ["app"], resourceUri: "ui://chart" } },
        },
      ],
    }),
    call: (name) =>
      name === "get_data"
        ? text("[1,2,3]")
        : name === "render_chart"
          ? text("chart")
          : unknownTool(name),
  }),
);
