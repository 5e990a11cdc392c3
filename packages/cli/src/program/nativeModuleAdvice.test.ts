import { describe, expect, it } from "vitest";
import {
  describeLoadError,
  driverDirOf,
  nativeModuleFix,
  nativeModuleProblem,
} from "./nativeModuleAdvice.js";

const root = "/usr/lib/node_modules/toolledger/node_modules/better-sqlite3";
const places = [
  "build/better_sqlite3.node",
  "build/Debug/better_sqlite3.node",
  "build/Release/better_sqlite3.node",
  "out/Debug/better_sqlite3.node",
  "lib/binding/node-v115-linux-x64/better_sqlite3.node",
];
const missing = `Could not locate the bindings file. Tried:\n${places.map((p) => ` → ${root}/${p}`).join("\n")}`;
const wrongNode = `The module '${root}/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 127. Please try re-compiling or re-installing\nthe module (for instance, using \`npm rebuild\` or \`npm install\`).`;

describe("better-sqlite3's load errors in one line, with what to do (issue 34)", () => {
  it("a missing module: what was tried, where; reinstall or build there", () => {
    expect(nativeModuleProblem(missing)).toBe("missing");
    expect(driverDirOf(missing)).toBe(root);
    expect(describeLoadError(missing)).toBe(
      `no compiled better_sqlite3.node: looked for it in 5 places in ${root} (build/better_sqlite3.node, build/Debug/better_sqlite3.node, build/Release/better_sqlite3.node, and 2 more), found none`,
    );
    expect(nativeModuleFix("missing", root)).toContain(
      `reinstall with npm i -g toolledger --allow-scripts=better-sqlite3, or build it: cd ${root} && npm run build-release`,
    );
  });

  it("a module built for another Node: its first line, and rebuild it there", () => {
    expect(nativeModuleProblem(wrongNode)).toBe("wrong_node");
    expect(driverDirOf(wrongNode)).toBe(root);
    expect(describeLoadError(wrongNode)).toBe(
      `${root}/build/Release/better_sqlite3.node was built for another Node (NODE_MODULE_VERSION 115; this Node ${process.versions.node} needs 127)`,
    );
    expect(describeLoadError("libc.so.6: version `GLIBC_2.38'\nnot found")).toBe(
      "libc.so.6: version `GLIBC_2.38' not found",
    );
    expect(nativeModuleFix("wrong_node", root)).toMatch(
      /^it was built for another Node version: rebuild it for this one: cd \S+ && npm run build-release/,
    );
  });

  it("a source checkout is told pnpm's way", () => {
    expect(
      nativeModuleFix(
        "missing",
        "/src/node_modules/.pnpm/better-sqlite3@12/node_modules/better-sqlite3",
      ),
    ).toMatch(/^in this source checkout: pnpm rebuild better-sqlite3/);
  });
});
