import { createReadStream } from "node:fs";

export interface LineStats {
  lines: number;
  bytes: number;
}

/**
 * Streams a JSONL file and calls `onLine` with each non-empty line, synchronously per chunk
 * (no promise per line). Memory stays at one chunk plus one partial line: the file is never
 * loaded whole.
 */
export async function forEachLine(
  path: string,
  onLine: (line: string) => void,
): Promise<LineStats> {
  let lines = 0;
  let bytes = 0;
  let rest: Buffer | null = null;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const buf: Buffer = rest ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
    bytes += (chunk as Buffer).length;
    let start = 0;
    for (let end = buf.indexOf(10, start); end !== -1; end = buf.indexOf(10, start)) {
      if (end > start) {
        onLine(buf.toString("utf8", start, end));
        lines++;
      }
      start = end + 1;
    }
    rest = start < buf.length ? buf.subarray(start) : null;
  }
  if (rest && rest.length > 0) {
    onLine(rest.toString("utf8"));
    lines++;
  }
  return { lines, bytes };
}
