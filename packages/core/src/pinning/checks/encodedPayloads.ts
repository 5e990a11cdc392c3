import type { PinFinding } from "../pinEvents.js";
import { INSTRUCTION_PHRASES } from "./instructionPhrases.js";
import { excerpt } from "./invisibleCharacters.js";

/**
 * P3: what marks decoded text as a command: a shell or interpreter invocation, a pipe into
 * a shell, a URL, or a path to secrets. Checked only on text that decoded from base64 or hex
 * into mostly printable ASCII, so hashes, ids and binary data never match.
 */
const COMMAND =
  /\b(?:curl|wget|bash|zsh|sh|powershell|pwsh|cmd\.exe|nc|ncat|netcat|rm\s+-rf|chmod|chown|sudo|eval|exec|python3?|node|perl|ruby|scp|ssh|base64\s+-d|iex|invoke-expression)\b|\|\s*(?:ba|z)?sh\b|\$\(|`[^`]+`|https?:\/\/|\/etc\/(?:passwd|shadow)|~\/\.ssh|\bid_rsa\b/i;

const BASE64 = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX = /\b(?:[0-9a-fA-F]{2}){8,}\b|(?:\\x[0-9a-fA-F]{2}){6,}/g;

/** P3: base64 and hex runs that decode to commands (or to instructions aimed at the model). */
export function findEncodedPayloads(text: string, field: string): PinFinding[] {
  const findings: PinFinding[] = [];
  const seen = new Set<number>();
  for (const [encoding, pattern] of [
    ["base64", BASE64],
    ["hex", HEX],
  ] as const) {
    for (const m of text.matchAll(pattern)) {
      if (seen.has(m.index)) continue;
      const decoded = encoding === "base64" ? decodeBase64(m[0]) : decodeHex(m[0]);
      if (decoded === null || !readsAsCommand(decoded)) continue;
      seen.add(m.index);
      findings.push({
        check: "encoded",
        field,
        index: m.index,
        excerpt: excerpt(text, m.index, Math.min(m[0].length, 40)),
        decoded,
        detail: `a ${encoding} run of ${m[0].length} characters decodes to a command: ${JSON.stringify(decoded.length > 120 ? `${decoded.slice(0, 117)}...` : decoded)}`,
      });
    }
  }
  return findings;
}

function readsAsCommand(decoded: string): boolean {
  if (decoded.length < 6) return false;
  let printable = 0;
  for (let i = 0; i < decoded.length; i++) {
    const c = decoded.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x0d || c === 0x09) printable++;
  }
  if (printable < decoded.length * 0.9) return false;
  const lower = decoded.toLowerCase();
  return COMMAND.test(decoded) || INSTRUCTION_PHRASES.some((p) => p.pattern.test(lower));
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard or URL-safe base64 to a Latin-1 string; null when it is not base64. */
export function decodeBase64(run: string): string | null {
  const body = run.replace(/=+$/, "").replaceAll("-", "+").replaceAll("_", "/");
  if (body.length % 4 === 1) return null;
  let bits = 0;
  let value = 0;
  let out = "";
  for (const c of body) {
    const d = ALPHABET.indexOf(c);
    if (d === -1) return null;
    value = (value << 6) | d;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((value >> bits) & 0xff);
    }
  }
  return out;
}

function decodeHex(run: string): string | null {
  const digits = run.replaceAll("\\x", "");
  if (digits.length % 2 !== 0) return null;
  let out = "";
  for (let i = 0; i < digits.length; i += 2)
    out += String.fromCharCode(Number.parseInt(digits.slice(i, i + 2), 16));
  return out;
}
