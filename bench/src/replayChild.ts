// Run as a child process by the memory benchmark, so its peak RSS is the replay's alone.
// Usage: node replayChild.js toolledger|baseline <log.jsonl>
import { replayFile, touchFile } from "./replayThroughput.js";

const [mode, path] = process.argv.slice(2);
if ((mode !== "toolledger" && mode !== "baseline") || path === undefined) {
  process.stderr.write("usage: replayChild.js toolledger|baseline <log.jsonl>\n");
  process.exit(2);
}
const start = performance.now();
if (mode === "toolledger") await replayFile(path);
else await touchFile(path);
const ms = performance.now() - start;
// resourceUsage().maxRSS is in kilobytes.
process.stdout.write(
  `${JSON.stringify({ ms, maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`,
);
