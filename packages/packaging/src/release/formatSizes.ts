import { basename } from "node:path";
import type { ReleaseResult } from "./buildRelease.js";

/** The release as the terminal shows it: one row per tarball with its sizes, then how to install. */
export function formatSizes(result: ReleaseResult, shownOut: string): string {
  const rows = result.tarballs.map((t) => [
    basename(t.file),
    formatBytes(t.size),
    formatBytes(t.unpackedSize),
    String(t.files.length),
    t.kind === "command" ? `the command; bundles ${t.bundled.join(", ")}` : "library",
  ]);
  const header = ["tarball", "packed", "unpacked", "files", ""];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) =>
        i === 1 || i === 2 || i === 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!),
      )
      .join("  ")
      .trimEnd();
  const command = result.tarballs.find((t) => t.kind === "command");
  const native = result.nativeModule;
  return [
    `toolledger ${result.version}: ${result.tarballs.length} tarballs in ${shownOut}`,
    "",
    line(header),
    ...rows.map(line),
    "",
    ...(native?.carried
      ? [
          `the command carries better-sqlite3 ${native.version} as built for Node ${native.node} (${native.platform}-${native.arch}, ABI ${native.abi}): npm i -g with such a Node builds nothing`,
        ]
      : native
        ? [
            `the command carries no better-sqlite3 module (${native.reason}): npm i -g downloads or builds it`,
          ]
        : []),
    ...(command
      ? [
          `install the command:  npm i -g --allow-scripts=better-sqlite3 ${shownOut}/${basename(command.file)}`,
        ]
      : []),
    "",
  ].join("\n");
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}
