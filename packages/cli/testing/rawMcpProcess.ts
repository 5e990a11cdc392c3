import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

export type Message = {
  id?: number | string | null;
  method?: string;
  result?: unknown;
  error?: unknown;
  [key: string]: unknown;
};

/**
 * An MCP server process spoken to in raw JSON-RPC lines, for what a well-behaved client never
 * sends (an 11 MiB line, members in any order). Collects every line it answers.
 */
export class RawMcpProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #stderr = "";
  #chunks: Buffer[] = [];
  #messages: Message[] = [];
  #waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];

  constructor(
    command: string,
    args: readonly string[],
    options: { cwd: string; env: NodeJS.ProcessEnv },
  ) {
    this.child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: "pipe" });
    this.child.stderr.on("data", (c: Buffer) => {
      this.#stderr += c.toString("utf8");
    });
    this.child.stdout.on("data", (chunk: Buffer) => this.#data(chunk));
    this.exited = new Promise((resolve) =>
      this.child.once("close", (code, signal) => resolve({ code, signal })),
    );
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** Writes one line (a message, or raw text sent as is). */
  send(message: Message | string): void {
    this.child.stdin.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  }

  /** The first message (already received or to come) with this id, or an error after `ms`. */
  response(id: number | string, ms = 60_000): Promise<Message> {
    return this.#wait((m) => m.id === id && m.method === undefined, `response to id ${id}`, ms);
  }

  /** Handshake as an MCP client named `raw`. */
  async initialize(): Promise<void> {
    this.send({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    });
    await this.response("init");
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  /** Resolves once the process's stderr matches `re` (what it says may come after the handshake). */
  async stderrMatching(re: RegExp, ms = 60_000): Promise<string> {
    const until = Date.now() + ms;
    while (!re.test(this.#stderr)) {
      if (Date.now() > until || this.child.exitCode !== null)
        throw new Error(
          `stderr never matched ${re} within ${ms} ms:\n${this.#stderr.slice(-2000)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.#stderr;
  }

  closeInput(): void {
    this.child.stdin.end();
  }

  #wait(match: (m: Message) => boolean, what: string, ms: number): Promise<Message> {
    const found = this.#messages.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new Error(
            `no ${what} within ${ms} ms (the gateway stopped answering); stderr:\n${this.#stderr.slice(-2000)}`,
          ),
        );
      }, ms);
      this.#waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  #data(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.#chunks.push(chunk.subarray(start, nl));
      const line = Buffer.concat(this.#chunks).toString("utf8");
      this.#chunks = [];
      start = nl + 1;
      if (line.trim() === "") continue;
      const message = JSON.parse(line) as Message;
      this.#messages.push(message);
      for (const w of this.#waiters.splice(0)) {
        if (w.match(message)) w.resolve(message);
        else this.#waiters.push(w);
      }
    }
    if (start < chunk.length) this.#chunks.push(chunk.subarray(start));
  }
}
