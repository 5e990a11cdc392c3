// Looks for a secret in text or bytes in the forms a server or a store may carry it in. Tests
// use it on events, log lines, error messages, database files and their WAL.

export interface FindLeaksOptions {
  /** Also report any run of this many consecutive characters of the secret (a cut copy). */
  fragment?: number;
}

/**
 * The forms of `secret` found in `haystack` (empty when none): raw, JSON-escaped,
 * URL-encoded, base64 (any alignment, standard or URL-safe), hex, and raw again after line
 * breaks are removed (a copy wrapped across lines). Bytes are searched as UTF-8.
 */
export function findLeaks(
  haystack: string | Uint8Array,
  secret: string,
  options: FindLeaksOptions = {},
): string[] {
  const text =
    typeof haystack === "string"
      ? Buffer.from(haystack, "utf8").toString("latin1")
      : Buffer.from(haystack).toString("latin1");
  const asBytes = (s: string) => Buffer.from(s, "utf8").toString("latin1");
  const found: string[] = [];
  const forms: [string, string][] = [
    ["raw", secret],
    ["json", JSON.stringify(secret).slice(1, -1)],
    ["url", encodeURIComponent(secret)],
    ["hex", Buffer.from(secret, "utf8").toString("hex")],
  ];
  for (const [i, core] of base64Cores(secret).entries()) {
    if (core.length < 4) continue;
    forms.push([`base64+${i}`, core]);
    forms.push([`base64url+${i}`, core.replaceAll("+", "-").replaceAll("/", "_")]);
  }
  for (const [name, form] of forms) if (text.includes(asBytes(form))) found.push(name);
  const unwrapped = text.replace(/\r?\n[ \t]*|\\r|\\n/g, "");
  if (!found.includes("raw") && unwrapped.includes(asBytes(secret))) found.push("wrapped");
  const n = options.fragment;
  if (n !== undefined && secret.length > n) {
    for (let i = 0; i + n <= secret.length; i++) {
      const piece = secret.slice(i, i + n);
      if (text.includes(asBytes(piece))) {
        found.push(`fragment ${JSON.stringify(piece)}`);
        break;
      }
    }
  }
  return found;
}

/** The base64 characters determined by the secret's bytes alone, for 0, 1 and 2 bytes before it. */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  return [0, 1, 2].map((a) => {
    const encoded = Buffer.concat([Buffer.alloc(a), bytes]).toString("base64");
    return encoded.slice(Math.ceil((8 * a) / 6), Math.floor((8 * (a + bytes.length)) / 6));
  });
}
