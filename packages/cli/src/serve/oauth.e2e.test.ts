// A1–A4 end to end, through the built `toolledger` command, against an OAuth-protected MCP
// server of our own (servers/oauthProtected: a strict authorization server and a resource
// server on loopback), with the MCP SDK's client driving `serve` as a host would and a
// headless $BROWSER following the authorization redirect.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  type ClientOutput,
  type ClientStep,
  scriptedClientScript,
  withStderrTo,
} from "../../testing/scriptedClientScript.js";
import { CLI, cleanEnv, REPO, runCli, runNode, tempDir } from "../../testing/spawnCli.js";
import { type OAuthServer, startOAuthServer } from "../../testing/startOAuthServer.js";

const HEADLESS = join(REPO, "packages", "cli", "testing", "headlessBrowser.mjs");
const servers: OAuthServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function oauthServer(flags: string[]): Promise<OAuthServer> {
  const s = await startOAuthServer(flags);
  servers.push(s);
  return s;
}

/** A user's environment: their own config directory (the token store) and a headless browser. */
function userEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return cleanEnv(dir, {
    XDG_CONFIG_HOME: join(dir, "config"),
    BROWSER: `${process.execPath} ${HEADLESS}`,
    ...extra,
  });
}

function config(dir: string, servers: Record<string, unknown>): string {
  const file = join(dir, "mcp.json");
  writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
  return file;
}

/** Runs `serve` (stdio) under the scripted client (the SDK's client underneath); its stderr goes to a file. */
async function serveWithClient(
  dir: string,
  env: Record<string, string>,
  serveArgs: string[],
  steps: ClientStep[],
  tag = "serve",
): Promise<{ out: ClientOutput; stderr: string }> {
  const script = join(dir, "client.mjs");
  writeFileSync(script, scriptedClientScript());
  const stderrFile = join(dir, `${tag}.stderr`);
  writeFileSync(stderrFile, "");
  const target = withStderrTo(stderrFile, process.execPath, [CLI, "serve", ...serveArgs], env);
  const r = await runNode([script, JSON.stringify({ target, steps })], {
    cwd: dir,
    env,
    timeoutMs: 120_000,
  });
  if (r.code !== 0) throw new Error(`client exited ${r.code}: ${r.stderr}`);
  // serve writes its last lines after the client closed its stdin.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { out: JSON.parse(r.stdout) as ClientOutput, stderr: readFileSync(stderrFile, "utf8") };
}

const text = (step: ClientOutput["steps"][number] | undefined) =>
  step?.error ?? (step?.result?.content ?? []).map((c) => c.text ?? "").join("\n");

/** Every place `secret` (or a 12-character piece of it) appears in `haystack`. */
function leaks(haystack: string | Buffer, secret: string): string[] {
  const text = typeof haystack === "string" ? haystack : haystack.toString("latin1");
  const found: string[] = [];
  for (let i = 0; i + 12 <= secret.length; i += 6) {
    const piece = secret.slice(i, i + 12);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}

describe("A1–A4 OAuth with a real OAuth-protected MCP server of our own", () => {
  test("login, status, serve (refresh after expiry, step-up), logout; no token, code, verifier or secret in the database, WAL, export, replay, view or stderr", async () => {
    const dir = tempDir();
    const server = await oauthServer(["--token-ttl", "3", "--rotate"]);
    const file = config(dir, { notes: { url: server.mcp } });
    const env = userEnv(dir);
    const cli = (args: string[]) => runCli(args, { cwd: dir, env, timeoutMs: 60_000 });

    const before = await cli(["auth", "status", "--config", file, "--json"]);
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toEqual([
      expect.objectContaining({ server: "notes", state: "not authorized" }),
    ]);

    // A1: login: discovery from the 401's challenge, dynamic registration, PKCE S256, resource.
    const login = await cli(["auth", "login", "notes", "--config", file]);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`authorized notes with ${server.issuer}`);
    let stats = await server.stats();
    expect(stats.registrations).toBe(1);
    expect(stats.authorizations).toEqual([
      { scope: "notes:read", resource: new URL(server.mcp).origin, challengeMethod: "S256" },
    ]);
    expect(stats.codeExchanges).toBe(1);

    // A2: the token store: 0600 files in a 0700 directory under the user's config directory.
    const store = join(dir, "config", "toolledger", "oauth");
    expect(statSync(store).mode & 0o777).toBe(0o700);
    const files = readdirSync(store).filter((f) => f.endsWith(".json"));
    expect(files.length).toBe(2);
    for (const f of files) expect(statSync(join(store, f)).mode & 0o777).toBe(0o600);

    const status = JSON.parse((await cli(["auth", "status", "--config", file, "--json"])).stdout);
    expect(status).toEqual([
      expect.objectContaining({
        server: "notes",
        issuer: server.issuer,
        // A 3-second token: expired already when the machine is slow.
        state: expect.stringMatching(/^(authorized|expired)$/),
        scopes: ["notes:read"],
        refreshable: true,
        client: "dynamic",
      }),
    ]);

    // doctor reads the same store: the server authorized, refreshable, no token printed.
    const doctor = await cli(["doctor", "--json", "--no-servers"]);
    const oauth = (
      JSON.parse(doctor.stdout) as {
        findings: { check: string; subject: string; status: string; message: string }[];
      }
    ).findings.filter((f) => f.check === "oauth");
    expect(oauth).toEqual([
      expect.objectContaining({
        subject: `OAuth ${server.mcp}`,
        status: "ok",
        message: expect.stringContaining(`authorized at ${server.issuer} (notes:read)`),
      }),
    ]);

    // The 3-second token has expired by the time serve uses it: refreshed first (A2). The
    // add_note call gets 403 insufficient_scope: step-up in the (headless) browser, then the
    // call goes through (A1). After another expiry, a refresh while serving.
    const expiresAt = Date.parse((status as { expiresAt: string }[])[0]!.expiresAt);
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 200));
    const db = join(dir, "sessions.db");
    const { out, stderr } = await serveWithClient(
      dir,
      env,
      ["--config", file, "--db", db, "--record-payloads"],
      [
        { listUntil: "notes__list_notes" },
        { call: "notes__list_notes" },
        { call: "notes__add_note", args: { text: "first" } },
        { sleepMs: 3200 },
        { call: "notes__list_notes" },
        { copy: `${db}-wal`, to: join(dir, "wal.copy") },
      ],
    );
    expect(out.tools).toEqual(["notes__add_note", "notes__list_notes"]);
    expect(text(out.steps[0])).toBe("[]");
    expect(text(out.steps[1])).toBe("added; 1 note(s)");
    expect(text(out.steps[2])).toBe('["first"]');
    stats = await server.stats();
    expect(stats.refreshes).toBeGreaterThanOrEqual(2);
    expect(stats.reusedRefreshTokens).toBe(0);
    expect(stats.authorizations.map((a) => a.scope)).toEqual([
      "notes:read",
      "notes:read notes:write",
    ]);
    expect(stderr).toContain("notes needs OAuth authorization; a browser opened");
    expect(existsSync(join(dir, "wal.copy"))).toBe(true);

    // A4: the events, shown by replay, explain and the view.
    const sessions = JSON.parse((await cli(["sessions", "--db", db, "--json"])).stdout) as {
      session: string;
    }[];
    const conversation = sessions[0]!.session;
    const replay = await cli(["replay", conversation, "--db", db]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain("notes's token refreshed at");
    expect(replay.stdout).toContain("notes needs OAuth authorization");
    expect(replay.stdout).toMatch(/notes authorized at \S+: scopes notes:read notes:write/);
    const replayJson = await cli(["replay", conversation, "--db", db, "--json"]);
    const explain = await cli([
      "explain",
      "notes__add_note",
      "--session",
      conversation,
      "--db",
      db,
    ]);
    expect(explain.code, explain.stderr).toBe(0);
    expect(explain.stdout).toContain("its server's OAuth:");
    const exported = await cli(["export", conversation, "--db", db]);
    expect(exported.stdout).toContain('"type":"OAuthTokenRefreshed"');
    expect(exported.stdout).toContain('"type":"OAuthAuthorized"');
    const html = join(dir, "view.html");
    const view = await cli(["view", conversation, "--db", db, "--out", html]);
    expect(view.code, view.stderr).toBe(0);
    expect(readFileSync(html, "utf8")).toContain("OAuthTokenRefreshed");

    // The scan below can fail: the token store (which must hold them) shows the secrets to it.
    const storeText = readdirSync(store)
      .map((f) => readFileSync(join(store, f), "utf8"))
      .join("\n");
    expect(stats.secrets.filter((s) => leaks(storeText, s).length > 0).length).toBeGreaterThan(0);

    // A2: logout revokes at the authorization server, then forgets.
    const logout = await cli(["auth", "logout", "notes", "--config", file]);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toContain(`token(s) revoked at ${server.issuer}`);
    stats = await server.stats();
    expect(stats.revocations).toBeGreaterThanOrEqual(1);
    expect(readdirSync(store).filter((f) => f.endsWith(".json"))).toEqual([]);
    const after = JSON.parse((await cli(["auth", "status", "--config", file, "--json"])).stdout);
    expect(after).toEqual([expect.objectContaining({ server: "notes", state: "not authorized" })]);

    // A3: none of the secrets the authorization server saw is anywhere we wrote.
    const places: [string, string | Buffer][] = [
      ["serve stderr", stderr],
      [
        "login/logout/status output",
        [login, logout, before].map((r) => r.stdout + r.stderr).join("\n"),
      ],
      ["replay", replay.stdout + replayJson.stdout],
      ["explain", explain.stdout],
      ["export", exported.stdout],
      ["view", readFileSync(html)],
      ["database", readFileSync(db)],
      ["WAL", readFileSync(join(dir, "wal.copy"))],
      ["client", JSON.stringify(out)],
    ];
    expect(stats.secrets.length).toBeGreaterThanOrEqual(8);
    for (const [where, haystack] of places)
      for (const secret of stats.secrets)
        expect(leaks(haystack, secret), `${where}: ${secret.slice(0, 5)}…`).toEqual([]);
  }, 240_000);

  test("A2: two serve processes sharing the token store refresh at once without losing the rotating refresh token", async () => {
    const dir = tempDir();
    const ttl = 4;
    const server = await oauthServer(["--token-ttl", String(ttl), "--rotate"]);
    const file = config(dir, { notes: { url: server.mcp } });
    const env = userEnv(dir);
    const login = await runCli(["auth", "login", "notes", "--config", file], {
      cwd: dir,
      env,
      timeoutMs: 60_000,
    });
    expect(login.code, login.stderr).toBe(0);
    // Both clients call at the same wall-clock moments, each just after a token expired, so
    // both gateways find it due at once; the refresh token rotates on every refresh, and a
    // rotated one used again revokes the whole grant (the server's reuse detection).
    const start = Date.now() + 20_000;
    const rounds = [0, 1, 2].map((i) => start + i * (ttl * 1000 + 500));
    const steps: ClientStep[] = [
      { listUntil: "notes__list_notes" },
      ...rounds.flatMap((at): ClientStep[] => [{ sleepUntil: at }, { call: "notes__list_notes" }]),
    ];
    const [a, b] = await Promise.all(
      ["a", "b"].map((tag) => {
        const sub = join(dir, tag);
        return serveWithClient(
          dir,
          env,
          ["--config", file, "--db", join(dir, `${tag}.db`)],
          steps,
          tag,
        ).then((r) => ({ ...r, sub }));
      }),
    );
    for (const r of [a!, b!]) {
      expect(r.out.tools, r.stderr).toContain("notes__list_notes");
      expect(
        r.out.steps.map((s) => text(s)),
        r.stderr,
      ).toEqual(["[]", "[]", "[]"]);
      expect(r.stderr).not.toContain("needs OAuth authorization");
    }
    const stats = await server.stats();
    expect(stats.reusedRefreshTokens).toBe(0);
    expect(stats.refreshes).toBeGreaterThanOrEqual(rounds.length);
    // One authorization for both: neither process had to ask the user again.
    expect(stats.authorizations.length).toBe(1);
  }, 240_000);

  test("A4 inside serve (an SSE server): the browser step once; calls meanwhile say `toolledger auth login`; tools join with list_changed", async () => {
    const dir = tempDir();
    const server = await oauthServer([]);
    const file = config(dir, { notes: { type: "sse", url: server.sse } });
    const urls = join(dir, "browser-urls.txt");
    const env = userEnv(dir, {
      BROWSER: `${process.execPath} ${join(REPO, "packages", "cli", "testing", "recordingBrowser.mjs")}`,
      BROWSER_URL_FILE: urls,
    });
    const db = join(dir, "sessions.db");
    const serving = serveWithClient(
      dir,
      env,
      ["--config", file, "--db", db],
      [
        { call: "notes__list_notes" },
        { listUntil: "notes__list_notes" },
        { call: "notes__list_notes" },
      ],
    );
    // The user opens the page a while later (the headless browser follows it to the callback).
    const deadline = Date.now() + 60_000;
    while (!existsSync(urls) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const url = readFileSync(urls, "utf8").trim();
    expect(url.startsWith(`${server.issuer}/authorize?`)).toBe(true);
    await new Promise((r) => setTimeout(r, 1500));
    const opened = await runNode([HEADLESS, url], { cwd: dir, env, timeoutMs: 30_000 });
    expect(opened.code, opened.stderr).toBe(0);
    const { out, stderr } = await serving;

    // Meanwhile: a tool error that says what to do.
    expect(out.steps[0]?.result?.isError).toBe(true);
    expect(text(out.steps[0])).toContain('extension "notes" needs OAuth authorization');
    expect(text(out.steps[0])).toContain(`toolledger auth login notes --config ${file}`);
    // Then the tools joined, the client was told, and the call went through.
    expect(out.listChanged).toBeGreaterThanOrEqual(1);
    expect(text(out.steps[1])).toBe("[]");
    // Once: one browser step, one authorization.
    expect(readFileSync(urls, "utf8").trim().split("\n")).toHaveLength(1);
    expect((await server.stats()).authorizations).toHaveLength(1);
    expect(stderr).toContain("needs OAuth authorization; a browser opened");

    const sessions = JSON.parse(
      (await runCli(["sessions", "--db", db, "--json"], { cwd: dir, env })).stdout,
    ) as { session: string }[];
    const exported = await runCli(["export", sessions[0]!.session, "--db", db], { cwd: dir, env });
    const types = exported.stdout
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { event: { type: string } }).event.type);
    expect(types).toEqual(
      expect.arrayContaining(["OAuthAuthorizationRequired", "OAuthAuthorized"]),
    );
    const required = exported.stdout
      .split("\n")
      .find((l) => l.includes("OAuthAuthorizationRequired"))!;
    expect(JSON.parse(required).event).toMatchObject({
      extension: "notes",
      issuer: server.issuer,
      scopes: ["notes:read"],
      reason: "no_token",
      prompt: "browser",
    });
  }, 240_000);

  test("A1 `auth login --no-browser`: the URL printed, the address the browser ended on pasted", async () => {
    const dir = tempDir();
    const server = await oauthServer([]);
    const file = config(dir, { notes: { url: server.mcp } });
    const env = userEnv(dir, { BROWSER: "/nonexistent/browser" });
    const child = spawn(
      process.execPath,
      [CLI, "auth", "login", "notes", "--config", file, "--no-browser"],
      {
        cwd: dir,
        env,
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let stderr = "";
    const printed = new Promise<string>((resolve) => {
      child.stderr.on("data", (c: Buffer) => {
        stderr += c.toString();
        const m = /\n {2}(http\S+)\n/.exec(stderr);
        if (m && stderr.includes("paste here")) resolve(m[1]!);
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const url = await printed;
    // On another machine's browser: the authorization server redirects to a loopback address
    // that does not load there; the user copies it from the address bar.
    const response = await fetch(url, { redirect: "manual" });
    const callback = response.headers.get("location")!;
    expect(callback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    child.stdin.write("not the address\n");
    child.stdin.write(`${callback}\n`);
    expect(await exited, stderr).toBe(0);
    expect(stderr).toContain("that is not the address of this authorization");
    expect(stderr).toContain(`authorized notes with ${server.issuer}`);
    // The code was pasted, never echoed back.
    const code = new URL(callback).searchParams.get("code")!;
    expect(stderr).not.toContain(code);
    const stats = await server.stats();
    expect(stats.codeExchanges).toBe(1);
  }, 120_000);

  test("A4 install cursor: an OAuth server (Cursor's static `auth` client) keeps working behind the gateway, and install says what changes", async () => {
    const dir = tempDir();
    const secret = "cursor-app-secret-0123456789";
    const server = await oauthServer([
      "--client-id",
      "cursor-app",
      "--client-secret",
      secret,
      "--no-dcr",
    ]);
    const file = join(dir, "project", ".cursor", "mcp.json");
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(
      file,
      JSON.stringify(
        {
          mcpServers: {
            notes: { url: server.mcp, auth: { CLIENT_ID: "cursor-app", CLIENT_SECRET: secret } },
            proxied: {
              command: "npx",
              args: ["-y", "mcp-remote", "https://example.com/sse"],
              disabled: true,
            },
          },
        },
        null,
        2,
      ),
    );
    const env = userEnv(dir);
    // This checkout's launcher (left out, install would write npx -y toolledger@<major>).
    const launcher = join(REPO, "packages", "cli", "bin", "toolledger");
    const installed = await runCli(
      [
        "install",
        "cursor",
        "--file",
        file,
        "--db",
        join(dir, "gateway.db"),
        "--command",
        launcher,
        "--yes",
      ],
      { cwd: dir, env },
    );
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toContain(
      "OAuth: notes is a remote server; toolledger signs in to it itself from now on (Cursor's stored sign-in is not reused)",
    );
    expect(installed.stderr).toContain("toolledger auth login notes --config");
    expect(installed.stderr).not.toContain(secret);
    const entry = (
      JSON.parse(readFileSync(file, "utf8")) as {
        mcpServers: { toolledger: { command: string; args: string[] } };
      }
    ).mcpServers.toolledger;
    // As Cursor starts it: the browser step happens once, the tools join, the call goes through.
    const script = join(dir, "client.mjs");
    writeFileSync(script, scriptedClientScript());
    const target = { type: "stdio", command: entry.command, args: entry.args, env };
    const r = await runNode(
      [
        script,
        JSON.stringify({
          target,
          steps: [{ listUntil: "notes__list_notes" }, { call: "notes__list_notes" }],
        }),
      ],
      { cwd: dir, env, timeoutMs: 120_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as ClientOutput;
    expect(out.tools).toContain("notes__list_notes");
    expect(text(out.steps[0])).toBe("[]");
    const stats = await server.stats();
    // The configured client, not a registration (the server offers none).
    expect(stats.registrations).toBe(0);
    expect(stats.codeExchanges).toBe(1);
  }, 240_000);
});
