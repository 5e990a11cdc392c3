import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { gatewayCommand, npxCommand } from "./gatewayCommand.js";

// Layouts as npm leaves them, in a temp folder: what `install` writes for each.
function packageAt(root: string, name = "toolledger"): string {
  mkdirSync(join(root, "dist"), { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name, version: "1.4.2" }));
  const main = join(root, "dist", "main.js");
  writeFileSync(main, "#!/usr/bin/env node\n");
  return main;
}

const temp = () => mkdtempSync(join(tmpdir(), "toolledger-gateway-command-"));

describe("the command install writes", () => {
  test("a global npm install: npm's link in <prefix>/bin, found on the PATH or beside lib/", () => {
    const prefix = temp();
    const main = packageAt(join(prefix, "lib", "node_modules", "toolledger"));
    mkdirSync(join(prefix, "bin"));
    symlinkSync("../lib/node_modules/toolledger/dist/main.js", join(prefix, "bin", "toolledger"));
    const onPath = gatewayCommand({ main, version: "1.4.2", env: { PATH: join(prefix, "bin") } });
    expect(onPath).toMatchObject({
      command: join(prefix, "bin", "toolledger"),
      args: [],
      kind: "installed",
    });
    expect(onPath.why).toContain("npm i -g toolledger` upgrades it in place");
    // Not on the PATH (a host's small environment, another shell): npm's bin folder all the same.
    expect(gatewayCommand({ main, version: "1.4.2", env: { PATH: "" } }).command).toBe(
      join(prefix, "bin", "toolledger"),
    );
  });

  test("a toolledger on the PATH that starts another installation is not taken", () => {
    const prefix = temp();
    const main = packageAt(join(prefix, "lib", "node_modules", "toolledger"));
    const other = temp();
    const otherMain = packageAt(join(other, "lib", "node_modules", "toolledger"));
    mkdirSync(join(other, "bin"));
    symlinkSync(otherMain, join(other, "bin", "toolledger"));
    const written = gatewayCommand({ main, version: "1.4.2", env: { PATH: join(other, "bin") } });
    expect(written.kind).toBe("npx");
    expect(written.why).toContain(
      `starts this installation (${join(prefix, "lib", "node_modules", "toolledger")})`,
    );
  });

  test("a project's install: its node_modules/.bin link", () => {
    const project = temp();
    const main = packageAt(join(project, "node_modules", "toolledger"));
    mkdirSync(join(project, "node_modules", ".bin"));
    symlinkSync(main, join(project, "node_modules", ".bin", "toolledger"));
    expect(gatewayCommand({ main, version: "1.4.2", env: {} })).toMatchObject({
      command: join(project, "node_modules", ".bin", "toolledger"),
      kind: "installed",
    });
  });

  test("a source checkout: npx with the major pinned, and why", () => {
    const checkout = temp();
    const main = packageAt(join(checkout, "packages", "cli"), "@toolledger/cli");
    const written = gatewayCommand({ main, version: "1.4.2", env: {} });
    expect(written).toMatchObject({ command: "npx", args: ["-y", "toolledger@1"], kind: "npx" });
    expect(written.why).toContain(`source checkout (${join(checkout, "packages", "cli")})`);
  });

  test("npx's own cache moves: npx again, not a path into it", () => {
    const cache = temp();
    const main = packageAt(join(cache, "_npx", "0f2e", "node_modules", "toolledger"));
    const written = gatewayCommand({ main, version: "1.4.2", env: {} });
    expect(written.args).toEqual(["-y", "toolledger@1"]);
    expect(written.why).toContain("npx's cache");
  });

  test("0.x pins the minor, where 0.x versions break", () => {
    expect(npxCommand("0.1.0").args).toEqual(["-y", "toolledger@0.1"]);
    expect(npxCommand("0.12.3-rc.1").args).toEqual(["-y", "toolledger@0.12"]);
    expect(npxCommand("2.0.1").args).toEqual(["-y", "toolledger@2"]);
  });
});
