import { describe, expect, it } from "vitest";
import { StderrTail } from "../connection/stderrTail.js";
import { Redactor } from "./redactor.js";
import { configSecrets, secretParts } from "./secretParts.js";

const R = Redactor.MARKER;

/** What is left of `out` besides markers (whole, or cut at either end) and the cut sign. */
function bare(out: string): string {
  let rest = out.replaceAll("…", "").replaceAll(R, "");
  for (let n = R.length - 1; n > 0; n--) {
    if (rest.startsWith(R.slice(-n))) rest = rest.slice(n);
    if (rest.endsWith(R.slice(0, n))) rest = rest.slice(0, -n);
  }
  return rest;
}

describe("secret values of a config (R6)", () => {
  it("takes env and header values, and the parts a server may echo alone", () => {
    expect(secretParts("Bearer sk-live-abc123")).toEqual([
      "Bearer sk-live-abc123",
      "sk-live-abc123",
    ]);
    const basic = `Basic ${Buffer.from("alice:hunter22").toString("base64")}`;
    expect(secretParts(basic)).toEqual(
      expect.arrayContaining(["alice:hunter22", "hunter22", basic.slice(6)]),
    );
    expect(secretParts('Digest username="bob", response="6629fae49393a053"')).toEqual(
      expect.arrayContaining(["6629fae49393a053"]),
    );
    expect(secretParts("session=abc123def; theme=dark")).toEqual(
      expect.arrayContaining(["abc123def"]),
    );
    expect(secretParts("postgres://app:p%40ss-word@db:5432/x")).toEqual(
      expect.arrayContaining(["p@ss-word", "p%40ss-word"]),
    );
  });

  it("leaves out values too short or too plain to be credentials", () => {
    for (const plain of [
      "abc",
      "debug",
      "TRUE",
      "stdio",
      "8080",
      "/home/me/notes",
      "https://api.example.com/v1",
    ])
      expect(secretParts(plain), plain).toEqual([]);
    expect(secretParts("1234567")).toEqual(["1234567"]);
    expect(secretParts("https://me:pw-123@api.example.com")).toEqual(["pw-123"]);
  });

  it("finds credentials on a command line and in URLs", () => {
    expect(
      configSecrets({
        type: "stdio",
        name: "x",
        command: "npx",
        args: [
          "mcp-remote",
          "https://mcp.example.com/sse?api_key=qk-789xyz&region=eu",
          "--header",
          "Authorization: Bearer tok-4567",
          "--api-key",
          "ak-0001",
          "--token=tk-0002",
          "--verbose",
        ],
        env: { API_KEY: "env-0003", LOG_LEVEL: "debug" },
      }).sort(),
    ).toEqual(
      ["Bearer tok-4567", "ak-0001", "env-0003", "qk-789xyz", "tk-0002", "tok-4567"].sort(),
    );
    expect(
      configSecrets({
        type: "streamable_http",
        name: "x",
        url: "https://user:pw-9876@mcp.example.com/mcp?token=tq-5555",
        headers: { "X-Api-Key": "xk-4444" },
      }).sort(),
    ).toEqual(["pw-9876", "tq-5555", "xk-4444"].sort());
  });
});

describe("Redactor", () => {
  const secret = "sk-live-4f9Qx7";
  const r = Redactor.forValues([`Bearer ${secret}`]);

  it("redacts a secret raw, JSON-escaped, URL-encoded, in base64 and hex, and wrapped across lines", () => {
    const forms = [
      secret,
      JSON.stringify(JSON.stringify(`Bearer ${secret}`)),
      encodeURIComponent(`Bearer ${secret}`),
      secret.replaceAll("-", "%2d"),
      Buffer.from(`x:${secret}`).toString("base64"),
      Buffer.from(`xy${secret}z`).toString("base64url"),
      Buffer.from(secret).toString("hex").toUpperCase(),
      `${secret.slice(0, 5)}\n    ${secret.slice(5)}`,
      `${secret.slice(0, 5)}\\n${secret.slice(5)}`,
      [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
    ];
    for (const form of forms) {
      const out = r.redact(`before ${form} after`);
      expect(out, form).toContain(R);
      expect(out, form).not.toContain(secret.slice(4, 10));
      expect(out.startsWith("before ") && out.endsWith(" after"), out).toBe(true);
    }
  });

  it("leaves text without a secret as it is, and knows no secret when empty", () => {
    expect(r.redact("nothing to see; sk-live is a prefix")).toBe(
      "nothing to see; sk-live is a prefix",
    );
    expect(Redactor.none.redact(`a ${secret}`)).toBe(`a ${secret}`);
    const value = { tools: [{ name: "a", description: "plain" }] };
    expect(r.redactValue(value)).toBe(value);
  });

  it("redacts strings and keys of a value, and returns a new value only when something changed", () => {
    const value = { a: [`x ${secret}`], [secret]: { b: 1 }, clean: { c: "d" } };
    const out = r.redactValue(value);
    expect(out).toEqual({ a: [`x ${R}`], [R]: { b: 1 }, clean: { c: "d" } });
    expect(out.clean).toBe(value.clean);
  });

  it("cuts after redacting: a secret across the cut leaves no fragment (head and tail)", () => {
    const text = `${"a".repeat(95)}${secret}${"b".repeat(95)}`;
    for (let max = 1; max < text.length; max += 3) {
      const head = r.head(text, max);
      const tail = r.tail(text, max);
      for (const out of [head, tail]) expect(bare(out).replace(/[ab]/g, "")).toBe("");
    }
  });

  it("a stderr ring redacts before it drops old text: a secret across its cut leaves no fragment", () => {
    const tail = new StderrTail(r, 64);
    for (let i = 0; i < 200; i++) tail.push(Buffer.from(`${"a".repeat(i % 97)}${secret}`));
    tail.push(Buffer.from("b".repeat(9000)));
    for (const max of [10, 64, 4096, 100_000]) {
      expect(bare(tail.read(max)).replace(/[ab]/g, "")).toBe("");
    }
  });

  it("joins UTF-8 split across stderr chunks before looking for secrets", () => {
    const r2 = Redactor.forValues(["pässwörd-ü"]);
    const bytes = Buffer.from("x pässwörd-ü y");
    const tail = new StderrTail(r2);
    for (let i = 0; i < bytes.length; i++) tail.push(bytes.subarray(i, i + 1));
    expect(tail.read(800)).toBe(`x ${R} y`);
  });
});
