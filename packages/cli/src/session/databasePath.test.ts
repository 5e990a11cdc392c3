import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { testDeps } from "../../testing/testDeps.js";
import { requireExistingDatabase, resolveDatabasePath } from "./databasePath.js";

describe("where the session database is", () => {
  test("--db wins, then TOOLLEDGER_DB, then XDG_DATA_HOME, then ~/.local/share", () => {
    const env = { TOOLLEDGER_DB: "env.db", XDG_DATA_HOME: "/xdg" };
    expect(resolveDatabasePath("flag.db", env, "/home/u", "/cwd")).toEqual({
      kind: "sqlite",
      path: "/cwd/flag.db",
      source: "--db",
    });
    expect(resolveDatabasePath(undefined, env, "/home/u", "/cwd")).toEqual({
      kind: "sqlite",
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
    const location = {
      kind: "sqlite" as const,
      path: join(dir, "nested", "sessions.db"),
      source: "--db" as const,
    };
    expect(() => requireExistingDatabase(location)).toThrow(
      expect.objectContaining({ kind: "notFound" }),
    );
    expect(existsSync(join(dir, "nested"))).toBe(false);
  });

  test("a postgres:// or postgresql:// URL names a server; messages get it without its password", () => {
    const url = "postgres://team:pa%24%24word@db.internal:5433/ledger?sslmode=require";
    expect(resolveDatabasePath(url, {}, "/home/u", "/cwd")).toEqual({
      kind: "postgres",
      path: "postgres://team:***@db.internal:5433/ledger?sslmode=require",
      url,
      source: "--db",
    });
    const fromEnv = resolveDatabasePath(
      undefined,
      { TOOLLEDGER_DB: "postgresql://u:secret@h/d?password=also-secret" },
      "/home/u",
      "/cwd",
    );
    expect(fromEnv).toMatchObject({ kind: "postgres", source: "TOOLLEDGER_DB" });
    expect(fromEnv.path).not.toMatch(/secret/);
    // Not a URL of a server: a file that happens to be named like one stays a file.
    expect(resolveDatabasePath("postgres.db", {}, "/home/u", "/cwd")).toMatchObject({
      kind: "sqlite",
      path: "/cwd/postgres.db",
    });
  });
});
