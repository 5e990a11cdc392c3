import { Redactor } from "./redactor.js";

/** C4: how call payloads are recorded when a host opts in. */
export interface PayloadCapture {
  /** Longest JSON text kept per payload; longer ones keep a prefix. Default 4,096. */
  maxChars?: number;
}

/** Keys whose values look like credentials: masked in recorded payloads whatever their value. */
const CREDENTIAL_KEY =
  /pass(word|wd|phrase)?$|secret|token|api[-_]?key|^key$|auth(orization)?$|cookie|credential|private[-_]?key|session[-_]?id|signature/i;

export const MASKED = "[masked]";
export const REDACTED = Redactor.MARKER;

/**
 * C4: a payload as it may enter the log: values under credential-looking keys masked, every
 * secret value of the host's configs redacted wherever it occurs (in every encoding the
 * Redactor covers), then cut to `maxChars` of JSON (redaction first, so a cut never leaves
 * part of a secret behind).
 */
export function capturePayload(
  value: unknown,
  redactor: Redactor,
  options: PayloadCapture = {},
): unknown {
  const maxChars = options.maxChars ?? 4096;
  const masked = mask(value, redactor, 0);
  const text = JSON.stringify(masked) ?? "null";
  if (text.length <= maxChars) return masked;
  return { truncated: true, chars: text.length, preview: text.slice(0, maxChars) };
}

/** Replaces every occurrence of every secret in `text` (see Redactor.forValues). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return Redactor.forValues(secrets).redact(text);
}

function mask(value: unknown, redactor: Redactor, depth: number): unknown {
  if (typeof value === "string") return redactor.redact(value);
  if (typeof value !== "object" || value === null) return value;
  if (depth > 32) return "[too deep]";
  if (Array.isArray(value)) return value.map((v) => mask(v, redactor, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    Object.defineProperty(out, redactor.redact(key), {
      value: CREDENTIAL_KEY.test(key) ? MASKED : mask(v, redactor, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
