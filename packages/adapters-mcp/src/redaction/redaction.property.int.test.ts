import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findLeaks } from "@toolledger/core/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStandaloneConversation } from "../conversation/standaloneConversation.js";
import { secretParts } from "./secretParts.js";

// R6 through real processes and a real HTTP server: for generated secrets and server
// outputs that embed them (any position, encoding, and across the stderr tail's cut), no
// stored event, background error, failure message, diagnostic or status holds them.

/** Values the policy counts as secrets (not a path, a port or a plain config word). */
const secret = (alphabet: string) =>
  fc
    .array(fc.constantFrom(...alphabet), { minLength: 12, maxLength: 40 })
    .map((cs) => cs.join(""))
    .filter((s) => secretParts(s).includes(s));
/** HTTP header values are visible ASCII; env values may be anything. */
const TOKEN = secret("ABCDEFGHJKLMNPQRSTUVWXYZ23456789_-+/=.~");
const KEY = secret('ABCDEFGHJKLMNPQRSTUVWXYZ23456789_-+/=%"\\é😀');
const FILLER = fc.integer({ min: 0, max: 2500 });

const ENCODINGS: Record<string, (s: string) => string> = {
  raw: (s) => s,
  json: (s) => JSON.stringify(s).slice(1, -1),
  url: encodeURIComponent,
  basic: (s) => Buffer.from(`user:${s}`).toString("base64"),
  // Split between characters (a cut surrogate pair would be a different, broken value).
  wrapped: (s) => `${[...s].slice(0, 5).join("")}\n    ${[...s].slice(5).join("")}`,
};

let http: Server;
let url = "";
let body = "";
beforeAll(async () => {
  http = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(401, { "content-type": "application/json" }).end(body));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

describe("no stored event, log line or error holds a config secret (R6, property, real processes)", () => {
  it("a 401 body and a server's stderr that echo secrets in any encoding and position", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolledger-redact-"));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        TOKEN,
        KEY,
        fc.constantFrom(...Object.keys(ENCODINGS)),
        FILLER,
        FILLER,
        async (token, key, encoding, before, after) => {
          const encode = ENCODINGS[encoding]!;
          body = JSON.stringify({ error: "invalid_token", echo: `Bearer ${encode(token)}` });
          const stderr = join(dir, `stderr-${run++}.txt`);
          writeFileSync(stderr, `${"x".repeat(before)}key=${encode(key)}\n${"y".repeat(after)}\n`);
          const s = await openStandaloneConversation({ connectTimeoutMs: 10_000 });
          const errors: string[] = [];
          s.errors$.subscribe((e) => errors.push(e.message));
          try {
            const results = await s.addExtensions([
              {
                type: "streamable_http",
                name: "remote",
                url,
                headers: { Authorization: `Bearer ${token}` },
              },
              {
                type: "stdio",
                name: "local",
                command: "/bin/sh",
                args: ["-c", 'cat "$0" >&2; exit 3', stderr],
                env: { API_KEY: key },
              },
            ]);
            expect(results.map((r) => r.error?.code)).toEqual(["START_FAILED", "START_FAILED"]);
            const everything = JSON.stringify({
              events: await s.store.readAll({ limit: 10_000 }),
              errors,
              failures: results.map((r) => r.error?.message),
              diagnostics: s.diagnostics(),
              extensions: s.extensions(),
            });
            expect(everything).toContain("invalid_token");
            for (const secret of [token, key]) {
              expect(findLeaks(everything, secret, { fragment: 10 }), encoding).toEqual([]);
            }
          } finally {
            await s.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 180_000);
});
