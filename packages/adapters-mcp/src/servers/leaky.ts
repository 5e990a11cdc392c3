#!/usr/bin/env node
// Test server that leaks its credentials, as careless servers do; the host must redact them.
//   stdio (default): prints $LEAKY_SECRET to stderr in several encodings, the raw copy placed
//     across the 800-character cut of a stderr tail. `--when start` prints and exits 3 before
//     the handshake; `--when call` (default) serves `echo`, `fail` (a JSON-RPC error echoing
//     the secret) and `leak` (prints, then exits 4).
//   `--http [--port N]`: a streamable-HTTP endpoint that answers every request with 401 and a
//     body echoing the Authorization header (raw, JSON-escaped, URL-encoded); prints
//     `listening <url>` on stdout.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  flag,
  hasFlag,
  objectSchema,
  serveStdio,
  text,
  toolServer,
  unknownTool,
} from "./internal/serve.js";

/** Where the stderr tail of a failure is cut (the adapter reports the last 800 characters). */
const CUT = 800;

function leakToStderr(secret: string): void {
  const half = Math.max(1, Math.floor(secret.length / 2));
  const lines = [
    `leaky: config ${JSON.stringify({ token: secret })}`,
    `leaky: calling https://api.example.com/v1?key=${encodeURIComponent(secret)}`,
    `leaky: basic ${Buffer.from(`user:${secret}`).toString("base64")}`,
    `leaky: wrapped ${secret.slice(0, half)}\n  ${secret.slice(half)}`,
    "x".repeat(300),
  ];
  // The raw secret starts `half` characters before the cut, so a cut made before redaction
  // would leave its second half in the tail.
  const after = "y".repeat(CUT - secret.length + half - 1);
  process.stderr.write(`${lines.join("\n")}\nleaky: token=${secret}${after}\n`);
}

if (hasFlag("http")) {
  const server = createServer((req, res) => {
    const auth = String(req.headers.authorization ?? "");
    req.resume();
    req.on("end", () => {
      res.writeHead(401, { "content-type": "application/json" }).end(
        JSON.stringify({
          error: "invalid_token",
          message: `the token in "Authorization: ${auth}" is revoked`,
          echo: auth,
          encoded: encodeURIComponent(auth),
        }),
      );
    });
  });
  server.listen(Number(flag("port", "0")), "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
} else {
  const secret = process.env.LEAKY_SECRET ?? "";
  if (flag("when", "call") === "start") {
    leakToStderr(secret);
    process.exit(3);
  }
  await serveStdio(
    toolServer({
      name: "leaky",
      list: () => ({
        tools: [
          {
            name: "echo",
            description: "Echoes value",
            inputSchema: objectSchema({ value: { type: "string" } }),
          },
          { name: "leak", description: "Prints its secret and exits", inputSchema: objectSchema() },
          {
            name: "fail",
            description: "Answers with a JSON-RPC error that echoes its secret",
            inputSchema: objectSchema(),
          },
        ],
      }),
      call: (name, args) => {
        if (name === "echo") return text(String(args.value ?? ""));
        if (name === "fail") throw new Error(`the upstream rejected key ${secret}`);
        if (name === "leak") {
          leakToStderr(secret);
          process.exit(4);
        }
        return unknownTool(name);
      },
    }),
  );
}
