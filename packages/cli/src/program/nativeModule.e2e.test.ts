import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { sampleLog, toJsonl } from "../../testing/sampleLog.js";
import { CLI, cleanEnv, REPO, runCli, runNode, tempDir } from "../../testing/spawnCli.js";
import { EXIT } from "./exitCodes.js";

// Issue 34, point 9: a better-sqlite3 whose install script never ran (npm's allow-scripts,
// --ignore-scripts, an offline install) has no compiled module. The loader's message ends its
// first line at "Tried:"; the CLI said only that. It says what was tried and what to do.

/**
 * A copy of this checkout's better-sqlite3 as such an install leaves it (its JavaScript and
 * its dependencies, no build/), and a loader hook that makes the built CLI use it: the
 * module's own loader then runs for real and finds nothing. The checkout's copy is left
 * alone (other tests use it meanwhile).
 */
function installWithoutNativeModule(dir: string): { hook: string; driver: string } {
  const req = (from: string) => createRequire(join(from, "package.json"));
  const real = dirname(
    req(join(REPO, "packages", "store-sqlite")).resolve("better-sqlite3/package.json"),
  );
  const bindings = dirname(req(real).resolve("bindings/package.json"));
  const fileUri = dirname(req(bindings).resolve("file-uri-to-path/package.json"));
  const modules = join(dir, "install", "node_modules");
  const driver = join(modules, "better-sqlite3");
  mkdirSync(driver, { recursive: true });
  cpSync(join(real, "package.json"), join(driver, "package.json"));
  cpSync(join(real, "lib"), join(driver, "lib"), { recursive: true, dereference: true });
  cpSync(bindings, join(modules, "bindings"), { recursive: true, dereference: true });
  cpSync(fileUri, join(modules, "file-uri-to-path"), { recursive: true, dereference: true });
  const hook = join(dir, "use-install.mjs");
  const target = pathToFileURL(join(driver, "lib", "index.js")).href;
  writeFileSync(
    hook,
    `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(
      `export async function resolve(specifier, context, next) {
  if (specifier === "better-sqlite3") return { url: ${JSON.stringify(target)}, shortCircuit: true };
  return next(specifier, context);
}`,
    )}));
`,
  );
  return { hook: pathToFileURL(hook).href, driver };
}

describe("better-sqlite3 without its compiled module (issue 34, point 9)", () => {
  test("a command and doctor say what was tried (not a bare 'Tried:') and what to do", async () => {
    const dir = tempDir();
    const env = cleanEnv(dir);
    const db = join(dir, "s.db");
    const log = join(dir, "sample.jsonl");
    writeFileSync(log, toJsonl(sampleLog().entries));
    expect(
      (await runCli(["import", log, "--session", "s1", "--db", db], { cwd: dir, env })).code,
    ).toBe(0);
    const { hook, driver } = installWithoutNativeModule(dir);
    const cli = (...args: string[]) => runNode(["--import", hook, CLI, ...args], { cwd: dir, env });

    const sessions = await cli("sessions", "--db", db);
    expect(sessions.code).toBe(EXIT.internal);
    const [message, hint] = sessions.stderr.trim().split("\n");
    expect(message).toMatch(
      /^toolledger: the SQLite driver's native module cannot be loaded: no compiled better_sqlite3\.node: looked for it in \d+ places in (\S+) \(build\/better_sqlite3\.node, .*build\/Release\/better_sqlite3\.node, and \d+ more\), found none$/,
    );
    expect(message).toContain(` in ${driver} (`);
    expect(message).not.toMatch(/Tried:$/);
    expect(hint).toBe(
      `hint: its install script was skipped or failed (npm's allow-scripts, --ignore-scripts, or no network for the prebuilt binary): reinstall with npm i -g toolledger --allow-scripts=better-sqlite3, or build it: cd ${driver} && npm run build-release (needs python3, make and a C++ compiler; offline, set npm_config_nodedir to Node's headers, e.g. /usr with Debian's nodejs); then \`toolledger doctor\` checks it again`,
    );

    const doctor = await cli("doctor", "--no-servers", "--db", db);
    expect(doctor.code).toBe(EXIT.unhealthy);
    const line = doctor.stdout.split("\n").find((l) => /^FAIL +sqlite/.test(l)) ?? "";
    expect(line).toMatch(
      /its native module does not load: no compiled better_sqlite3\.node: looked for it in \d+ places in \S+ \(.*\), found none → /,
    );
    expect(line).not.toContain("Tried:");
    expect(line).toContain(
      `→ its install script was skipped or failed (npm's allow-scripts, --ignore-scripts, or no network for the prebuilt binary): reinstall with npm i -g toolledger --allow-scripts=better-sqlite3, or build it: cd ${driver} && npm run build-release`,
    );
  }, 60_000);
});
