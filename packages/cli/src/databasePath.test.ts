import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { testDeps } from "./_testing/testDeps.js";
import { requireExistingDatabase, resolveDatabasePath } from "./databasePath.js";

describe("where the session database is", () => {
  test("--db wins, then TOOLLEDGER_DB, then XDG_DATA_HOME, then ~/.local/share", () => {
    const env = { TOOLLEDGER_DB: "env.db", XDG_DATA_HOME: "/xdg" };
    expect(resolveDatabasePath("flag.db", env, "/home/u", "/cwd")).toEqual({
      path: "/cwd/flag.db",
      source: "--db",
    });
    expect(resolveDatabasePath(undefined, env, "/home/u", "/cwd")).toEqual({
      path: "/cwd/env.db",
      source: "TOOLLEDGER_DB",
    });
    expect(resolveDatabasePath(undefined, { XDG_DATA_HOME: "/xdg" }, "/home/u", "/cwd").path).toBe(
      "/xdg/toolledger/sessions.db",
    );
    expect(resolveDatabasePath(undefined, {}, "/home/u", "/cwd").path).toBe(
      "/home/u/.local/share/toolledger/sessions.db",
    );
  });

  test("a relative XDG_DATA_HOME is ignored, as the XDG spec requires", () => {
    expect(resolveDatabasePath(undefined, { XDG_DATA_HOME: "rel" }, "/home/u", "/cwd").source).toBe(
      "home",
    );
  });

  test("reading commands: a missing database is not-found and nothing is created", () => {
    const { dir } = testDeps();
    const location = { path: join(dir, "nested", "sessions.db"), source: "--db" as const };
    expect(() => requireExistingDatabase(location)).toThrow(
      expect.objectContaining({ kind: "notFound" }),
    );
    expect(existsSync(join(dir, "nested"))).toBe(false);
  });
});
