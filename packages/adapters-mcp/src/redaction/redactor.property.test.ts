import { findLeaks } from "@toolledger/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StderrTail } from "../connection/stderrTail.js";
import { Redactor } from "./redactor.js";
import { secretParts } from "./secretParts.js";

// Secrets are drawn from one alphabet and the server's surrounding output from another, so
// after redaction every character left must be context (or a redaction marker): not one
// character of a secret may survive, whole or cut, in any text encoding.
const SECRET_CHARS = [
  ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
  ...`"'\\/%+=-_.:@&?`,
  "é",
  "ß",
  "中",
  "😀",
];
const CONTEXT_CHARS = ["·", "~", "|", "#", "\n", "¶"];

const secretArb = fc
  .array(fc.constantFrom(...SECRET_CHARS, " "), { minLength: 4, maxLength: 40 })
  .map((cs) => cs.join(""))
  // Values the policy treats as config rather than credentials (a path, a port) are not generated.
  .filter((s) => s.trim() === s && secretParts(s).includes(s));
const contextArb = fc
  .array(fc.constantFrom(...CONTEXT_CHARS), { maxLength: 300 })
  .map((cs) => cs.join(""));

const hexLower = (s: string) => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
const pyJson = (s: string) =>
  JSON.stringify(s)
    .slice(1, -1)
    .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** Text encodings a server may echo a secret in; the index picks characters for the mixed one. */
const TEXT_ENCODINGS: Record<string, (s: string, pick: number[]) => string> = {
  raw: (s) => s,
  json: (s) => JSON.stringify(s).slice(1, -1),
  jsonAscii: pyJson,
  jsonTwice: (s) => JSON.stringify(JSON.stringify(s).slice(1, -1)).slice(1, -1),
  uri: encodeURIComponent,
  uriLower: (s) => hexLower(encodeURIComponent(s)),
  form: (s) => encodeURIComponent(s).replaceAll("%20", "+"),
  wrapped: (s, pick) => {
    const chars = [...s];
    return chars
      .map((c, i) => (i > 0 && pick[i % pick.length]! % 5 === 0 ? `\n  ${c}` : c))
      .join("");
  },
  wrappedEscaped: (s, pick) => {
    const chars = [...JSON.stringify(s).slice(1, -1)];
    return chars
      .map((c, i) =>
        i > 0 && chars[i - 1] !== "\\" && pick[i % pick.length]! % 4 === 0 ? `\\n${c}` : c,
      )
      .join("");
  },
  mixed: (s, pick) =>
    [...s]
      .map((c, i) => {
        const k = pick[i % pick.length]! % 3;
        if (k === 1) return hexLower(encodeURIComponent(c));
        if (k === 2)
          return [...Array(c.length).keys()]
            .map((j) => `\\u${c.charCodeAt(j).toString(16).padStart(4, "0")}`)
            .join("");
        return c;
      })
      .join(""),
};

/** Whatever is not context, a marker (whole or cut at an end) or the cut sign. */
function residue(out: string): string {
  const R = Redactor.MARKER;
  let rest = out.replaceAll("…", "").replaceAll(R, "");
  for (let n = R.length - 1; n > 0; n--) {
    if (rest.startsWith(R.slice(-n))) rest = rest.slice(n);
    if (rest.endsWith(R.slice(0, n))) rest = rest.slice(0, -n);
  }
  return [...rest].filter((c) => !CONTEXT_CHARS.includes(c)).join("");
}

/** Every sink a server's text passes through before it is stored or printed. */
function sinks(r: Redactor, text: string, cut: number, chunk: number): string[] {
  const max = 1 + (cut % Math.max(1, text.length));
  const ring = new StderrTail(r, 64 + (cut % 200));
  const bytes = Buffer.from(text, "utf8");
  for (let i = 0; i < bytes.length; i += chunk) ring.push(bytes.subarray(i, i + chunk));
  // Then enough chatter that the ring redacts and drops what held the secret.
  const chatter = Buffer.from("·".repeat(r.maxMatchLength + 5000), "utf8");
  for (let i = 0; i < chatter.length; i += 4096) ring.push(chatter.subarray(i, i + 4096));
  const value = r.redactValue({ text, list: [text], [text]: true });
  return [
    r.redact(text),
    r.head(text, max),
    r.tail(text, max),
    ring.read(max),
    ...value.list,
    value.text,
    ...Object.keys(value).filter((k) => k !== "text" && k !== "list"),
  ];
}

describe("Redactor: no secret survives any sink (R6, property)", () => {
  it("any secret, in any text encoding, at any position, through any cut", () => {
    fc.assert(
      fc.property(
        fc.array(secretArb, { minLength: 1, maxLength: 3 }),
        fc.constantFrom(...Object.keys(TEXT_ENCODINGS)),
        fc.array(fc.nat(), { minLength: 1, maxLength: 16 }),
        fc.array(contextArb, { minLength: 4, maxLength: 4 }),
        fc.nat(),
        fc.integer({ min: 1, max: 97 }),
        (secrets, encoding, pick, ctx, cut, chunk) => {
          const r = Redactor.forValues(secrets);
          const encode = TEXT_ENCODINGS[encoding]!;
          const text = ctx[0]! + secrets.map((s, i) => encode(s, pick) + ctx[i + 1]!).join("");
          for (const out of sinks(r, text, cut, chunk)) expect(residue(out)).toBe("");
        },
      ),
      { numRuns: 300 },
    );
  });

  it("base64 (inside Basic auth or any blob, standard or URL-safe) and hex leave no core of the secret", () => {
    fc.assert(
      fc.property(
        secretArb,
        fc.uint8Array({ maxLength: 5 }),
        fc.uint8Array({ maxLength: 5 }),
        fc.constantFrom("base64", "base64url", "hex"),
        contextArb,
        (secret, before, after, encoding, ctx) => {
          const r = Redactor.forValues([secret]);
          const blob = Buffer.concat([before, Buffer.from(secret, "utf8"), after]).toString(
            encoding as BufferEncoding,
          );
          for (const out of sinks(r, `${ctx}${blob}${ctx}`, secret.length, 7)) {
            expect(findLeaks(out, secret)).toEqual([]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
