import { constants, createPrivateKey, type KeyObject, randomUUID, sign } from "node:crypto";

/** RFC 7523 client assertion type, sent with `client_assertion`. */
export const JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/**
 * A1, `private_key_jwt` (RFC 7523): a short-lived JWT naming the client as issuer and
 * subject and the authorization server as audience, signed with the configured key
 * (node:crypto; no other dependency). The algorithm defaults to the key's usual one.
 */
export function signClientAssertion(options: {
  clientId: string;
  audience: string;
  privateKeyPem: string;
  algorithm?: string;
  lifetimeSeconds?: number;
  now?: number;
}): string {
  let key: KeyObject;
  try {
    key = createPrivateKey(options.privateKeyPem);
  } catch (error) {
    throw new Error(
      `oauth.privateKey is not a PEM private key this machine can read (${(error as Error).message.replace(/\s+/g, " ")}); give a PKCS#8 "-----BEGIN PRIVATE KEY-----" key`,
    );
  }
  const alg = options.algorithm ?? defaultAlgorithm(key);
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const header = { alg, typ: "JWT" };
  const claims = {
    iss: options.clientId,
    sub: options.clientId,
    aud: options.audience,
    iat: now,
    exp: now + (options.lifetimeSeconds ?? 300),
    jti: randomUUID(),
  };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = signWith(alg, key, Buffer.from(input));
  return `${input}.${signature.toString("base64url")}`;
}

function defaultAlgorithm(key: KeyObject): string {
  switch (key.asymmetricKeyType) {
    case "ec": {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      return curve === "secp384r1" ? "ES384" : curve === "secp521r1" ? "ES512" : "ES256";
    }
    case "ed25519":
      return "EdDSA";
    default:
      return "RS256";
  }
}

function signWith(alg: string, key: KeyObject, data: Buffer): Buffer {
  const bits = /^(?:RS|PS|ES)(256|384|512)$/.exec(alg)?.[1];
  if (alg === "EdDSA") return sign(null, data, key);
  if (!bits) {
    throw new Error(
      `oauth.signingAlgorithm ${JSON.stringify(alg)} is not supported; use RS256, PS256, ES256 (or 384/512) or EdDSA`,
    );
  }
  const digest = `sha${bits}`;
  if (alg.startsWith("ES")) return sign(digest, data, { key, dsaEncoding: "ieee-p1363" });
  if (alg.startsWith("PS"))
    return sign(digest, data, {
      key,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: Number(bits) / 8,
    });
  return sign(digest, data, key);
}

function b64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}
