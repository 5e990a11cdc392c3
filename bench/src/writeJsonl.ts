import { once } from "node:events";
import { createWriteStream } from "node:fs";

export interface WrittenLog {
  path: string;
  events: number;
  bytes: number;
  byType: Record<string, number>;
}

/** Writes events as JSONL, buffering ~1 MiB per write and honouring back-pressure. */
export async function writeJsonl(
  path: string,
  events: Iterable<{ type: string }>,
): Promise<WrittenLog> {
  const out = createWriteStream(path);
  const byType: Record<string, number> = {};
  let count = 0;
  let bytes = 0;
  let pending: string[] = [];
  let pendingSize = 0;
  const flush = async () => {
    const text = pending.join("");
    pending = [];
    pendingSize = 0;
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, "drain");
  };
  for (const event of events) {
    const line = `${JSON.stringify(event)}\n`;
    pending.push(line);
    pendingSize += line.length;
    byType[event.type] = (byType[event.type] ?? 0) + 1;
    count++;
    if (pendingSize >= 1 << 20) await flush();
  }
  await flush();
  out.end();
  await once(out, "finish");
  return { path, events: count, bytes, byType };
}
