import { gzipSync } from "node:zlib";

/** One entry of a tarball: a folder (no data) or a file. */
export interface TarEntry {
  /** Relative path, `/`-separated; a folder's ends with `/`. */
  path: string;
  data?: Buffer;
  mode: number;
}

const BLOCK = 512;
/** A fixed modification time (2000-01-01), so the same files give the same bytes. */
const MTIME = 946_684_800;

/**
 * A gzipped POSIX (ustar) tarball of `entries`, in order: what prebuild-install unpacks. Owner
 * 0, fixed times: the bytes depend only on the paths, modes and contents.
 */
export function tarGz(entries: readonly TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const folder = entry.path.endsWith("/");
    if (folder && entry.data !== undefined) throw new Error(`${entry.path}: a folder has no data`);
    const data = entry.data ?? Buffer.alloc(0);
    blocks.push(header(entry.path, entry.mode, data.length, folder ? "5" : "0"));
    if (data.length > 0) {
      blocks.push(data);
      const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
      if (pad > 0) blocks.push(Buffer.alloc(pad));
    }
  }
  blocks.push(Buffer.alloc(2 * BLOCK));
  return gzipSync(Buffer.concat(blocks), { level: 9 });
}

function header(path: string, mode: number, size: number, type: "0" | "5"): Buffer {
  const name = Buffer.from(path, "utf8");
  if (name.length > 100) throw new Error(`${path}: longer than a tar name (100 bytes)`);
  const block = Buffer.alloc(BLOCK);
  name.copy(block, 0);
  octal(block, 100, 8, mode);
  octal(block, 108, 8, 0);
  octal(block, 116, 8, 0);
  octal(block, 124, 12, size);
  octal(block, 136, 12, MTIME);
  block.write(type, 156, "ascii");
  block.write("ustar\u000000", 257, "ascii");
  // The checksum is computed with its own field as spaces.
  block.fill(" ", 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\u0000 `, 148, "ascii");
  return block;
}

/** A zero-padded octal number ending in NUL, filling `length` bytes at `offset`. */
function octal(block: Buffer, offset: number, length: number, value: number): void {
  const digits = value.toString(8);
  if (digits.length > length - 1) throw new Error(`${value} does not fit a tar field`);
  block.write(`${digits.padStart(length - 1, "0")}\u0000`, offset, "ascii");
}
