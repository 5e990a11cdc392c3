/** Where a command writes text: stdout for data, stderr for messages. */
export interface TextSink {
  write(chunk: string): void;
  /** Whether the sink is a terminal (colours and progress only then). */
  readonly isTTY: boolean;
}

/**
 * Everything a command may touch besides files and child processes. Only `main.ts` builds
 * this from `process`; tests build their own and read what was written.
 */
export interface Deps {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  home: string;
  stdout: TextSink;
  stderr: TextSink;
  now: () => Date;
  /** Byte streams for `serve` over stdio (MCP framing goes straight through them). */
  stdio: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream };
  /** Aborted when the user interrupts (SIGINT, SIGTERM): long-running commands stop cleanly. */
  signal: AbortSignal;
  /** The CLI's version, for `--version` and `serve`'s server info. */
  version: string;
}
