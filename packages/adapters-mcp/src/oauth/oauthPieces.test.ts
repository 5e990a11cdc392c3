import { generateKeyPairSync, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Redactor } from "../redaction/redactor.js";
import { CallbackListener } from "./callbackListener.js";
import { oauthSecretValues } from "./oauthSettings.js";
import { browserCommands } from "./openBrowser.js";
import { signClientAssertion } from "./privateKeyJwt.js";

describe("A1 the browser step", () => {
  it("$BROWSER: a colon-separated list, %s for the URL, else the URL appended; else the platform's opener", () => {
    const url = "https://as.example/authorize?x=1";
    expect(browserCommands(url, { BROWSER: "firefox --new-tab:lynx %s" })).toEqual([
      ["firefox", "--new-tab", url],
      ["lynx", url],
    ]);
    expect(browserCommands(url, { BROWSER: '"/opt/my browser/run" --x' })).toEqual([
      ["/opt/my browser/run", "--x", url],
    ]);
    const platform = browserCommands(url, {});
    expect(platform).toHaveLength(1);
    expect(platform[0]?.at(-1)).toBe(url);
  });

  it("the callback accepts only its own state; a refusal is a result, never a code", async () => {
    const listener = await CallbackListener.listen(0, "notes");
    listener.expect("the-state");
    const wrong = await fetch(`${listener.redirectUri}?code=stolen&state=other`);
    expect(wrong.status).toBe(400);
    expect(listener.accept("not a url")).toBeNull();
    expect(listener.accept(`${listener.redirectUri}?code=x&state=other`)).toBeNull();
    const denied = await fetch(
      `${listener.redirectUri}?error=access_denied&error_description=no&state=the-state`,
    );
    expect(denied.status).toBe(400);
    expect(await listener.result).toEqual({ ok: false, error: "access_denied", description: "no" });
    expect(listener.closed).toBe(true);
  });

  it("a good redirect settles with the code; the page never shows it", async () => {
    const listener = await CallbackListener.listen(0, "notes");
    listener.expect("s1");
    const page = await fetch(`${listener.redirectUri}?code=the-code-123&state=s1`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("authorized for notes");
    expect(html).not.toContain("the-code-123");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await listener.result).toEqual({ ok: true, code: "the-code-123" });
  });
});

describe("A1 private_key_jwt", () => {
  it("signs ES256 and RS256 assertions that verify with the public key (iss = sub = client, aud = issuer)", () => {
    for (const [type, alg] of [
      ["ec", "ES256"],
      ["rsa", "RS256"],
    ] as const) {
      const { privateKey, publicKey } =
        type === "ec"
          ? generateKeyPairSync("ec", { namedCurve: "P-256" })
          : generateKeyPairSync("rsa", { modulusLength: 2048 });
      const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
      const jwt = signClientAssertion({
        clientId: "svc",
        audience: "https://as.example",
        privateKeyPem: pem,
      });
      const [h, c, sig] = jwt.split(".");
      const header = JSON.parse(Buffer.from(h!, "base64url").toString());
      const claims = JSON.parse(Buffer.from(c!, "base64url").toString());
      expect(header).toEqual({ alg, typ: "JWT" });
      expect(claims).toMatchObject({ iss: "svc", sub: "svc", aud: "https://as.example" });
      expect(claims.exp - claims.iat).toBe(300);
      const ok = verify(
        `sha256`,
        Buffer.from(`${h}.${c}`),
        type === "ec" ? { key: publicKey, dsaEncoding: "ieee-p1363" } : publicKey,
        Buffer.from(sig!, "base64url"),
      );
      expect(ok).toBe(true);
    }
  });

  it("a key that is not a PEM private key is a clear error, without the key", () => {
    expect(() =>
      signClientAssertion({
        clientId: "c",
        audience: "a",
        privateKeyPem: "-----BEGIN NONSENSE-----",
      }),
    ).toThrow(/oauth.privateKey is not a PEM private key/);
  });
});

describe("A3 the config's OAuth secrets are the Redactor's", () => {
  it("the client secret and the private key (whole, and line by line)", () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const values = oauthSecretValues({
      clientId: "public-id",
      clientSecret: "the-client-secret",
      privateKey: pem,
    });
    expect(values).toContain("the-client-secret");
    expect(values).not.toContain("public-id");
    const r = Redactor.forValues(values);
    const body = pem.split("\n")[1]!;
    expect(r.redact(`secret the-client-secret and key line ${body}`)).not.toContain(
      "the-client-secret",
    );
    expect(r.redact(`key line ${body}`)).not.toContain(body);
  });
});
