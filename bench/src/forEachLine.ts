import { open } from "node:fs/promises";

export interface LineStats {
  lines: number;
  bytes: number;
}

/**
 * Streams a JSONL file and calls `onLine` with each non-empty line, synchronously per chunk
 * (no promise per line). The file is read into one reused buffer, the unfinished line moved
 * to its front before the next read, so no chunk is allocated or concatenated: memory stays
 * at one buffer (grown only for a line longer than it), the file is never loaded whole.
 */
export async function forEachLine(
  path: string,
  onLine: (line: string) => void,
  chunkBytes = 1 << 20,
): Promise<LineStats> {
  let lines = 0;
  let bytes = 0;
  let buf = Buffer.allocUnsafe(chunkBytes);
  // Bytes of an unfinished line at the front of `buf`.
  let rest = 0;
  const file = await open(path, "r");
  try {
    for (;;) {
      if (rest === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, rest);
        buf = bigger;
      }
      const { bytesRead } = await file.read(buf, rest, buf.length - rest, null);
      if (bytesRead === 0) break;
      bytes += bytesRead;
      const end = rest + bytesRead;
      // What this read filled (the rest of `buf` holds bytes of earlier reads).
      const filled = buf.subarray(0, end);
      let start = 0;
      // Only the new bytes can hold a newline: the unfinished line had none.
      for (let nl = filled.indexOf(10, rest); nl !== -1; nl = filled.indexOf(10, start)) {
        if (nl > start) {
          onLine(filled.toString("utf8", start, nl));
          lines++;
        }
        start = nl + 1;
      }
      rest = end - start;
      if (rest > 0 && start > 0) buf.copyWithin(0, start, end);
    }
  } finally {
    await file.close();
  }
  if (rest > 0) {
    onLine(buf.toString("utf8", 0, rest));
    lines++;
  }
  return { lines, bytes };
}
