// R14: names every model API accepts (`^[a-zA-Z0-9_-]{1,64}$`). A public name that does not
// fit gets a wire name: a readable head, "_", and a hash of the whole public name.

/** R14: the names model APIs accept: ASCII letters, digits, `_` and `-`, 1 to 64 characters. */
export const WIRE_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_WIRE_NAME_LENGTH = 64;
/** The shortest limit a host's outer-prefix budget may leave: a head plus the hash. */
export const MIN_WIRE_NAME_LENGTH = 16;
const HASH_LENGTH = 8;

/** Whether `name` is accepted by model APIs within `limit` characters. */
export function fitsWire(name: string, limit: number = MAX_WIRE_NAME_LENGTH): boolean {
  return name.length >= 1 && name.length <= limit && wireSafe(name);
}

/** Every character is an ASCII letter, digit, `_` or `-` (extension keys always are, R1). */
export function wireSafe(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (
      !(
        (c >= 97 && c <= 122) ||
        (c >= 65 && c <= 90) ||
        (c >= 48 && c <= 57) ||
        c === 95 ||
        c === 45
      )
    )
      return false;
  }
  return true;
}

/**
 * The wire name of `publicName` for `limit` characters: the name with every other character
 * as `_`, shortened (for a prefixed tool the key gives way before the tool's own name), then
 * `_` and 8 base-36 digits of a hash of the full public name. `attempt` > 0 re-hashes, for the
 * rare clash with a name already taken. Deterministic: the same inputs give the same name.
 */
export function deriveWireName(
  publicName: string,
  key: string | null,
  limit: number,
  attempt = 0,
): string {
  const hash = hash36(attempt === 0 ? publicName : `${publicName}\u0000${attempt}`);
  const room = limit - 1 - HASH_LENGTH;
  let head: string;
  if (key !== null && publicName.startsWith(`${key}__`)) {
    const raw = sanitize(publicName.slice(key.length + 2));
    const keyRoom = Math.max(Math.min(key.length, 8), room - 2 - raw.length);
    const keptKey = key.slice(0, Math.min(key.length, keyRoom));
    const keptRaw = raw.slice(0, Math.max(0, room - 2 - keptKey.length));
    head = `${keptKey}__${keptRaw}`.slice(0, room);
  } else {
    head = sanitize(publicName).slice(0, room);
  }
  return head === "" ? `t_${hash}`.slice(0, limit) : `${head}_${hash}`;
}

/** Every character that is not an ASCII letter, digit, `_` or `-` becomes `_` (per code point). */
function sanitize(text: string): string {
  let out = "";
  for (const ch of text) out += ch.length === 1 && wireSafe(ch) ? ch : "_";
  return out;
}

/** 8 base-36 digits of a 53-bit hash (cyrb53): about 41 bits, collisions are re-hashed. */
function hash36(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const n = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return n.toString(36).padStart(HASH_LENGTH, "0").slice(-HASH_LENGTH);
}
