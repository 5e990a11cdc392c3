#!/usr/bin/env node
import { relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildRelease } from "./release/buildRelease.js";
import { formatSizes } from "./release/formatSizes.js";
import { DEFAULT_OUT } from "./release/releasePlan.js";

// `pnpm release`: the built workspace → publishable tarballs in one folder, with their sizes.
const root = fileURLToPath(new URL("../../..", import.meta.url));
const usage =
  "usage: pnpm release [--out <dir>] [--version <semver>] [--without-native-module] [--json]\n  writes the toolledger command and the libraries as tarballs into <dir> (default: release/);\n  the command carries better-sqlite3's module as pnpm install built it for this Node, unless\n  --without-native-module (a release for the registry)";
let values: {
  out?: string;
  version?: string;
  json?: boolean;
  help?: boolean;
  "without-native-module"?: boolean;
};
try {
  ({ values } = parseArgs({
    options: {
      out: { type: "string" },
      version: { type: "string" },
      json: { type: "boolean" },
      "without-native-module": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  }));
} catch (error) {
  process.stderr.write(`release: ${(error as Error).message}\n${usage}\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
if (values.version !== undefined && !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(values.version)) {
  process.stderr.write(
    `release: --version must be a semver version such as 0.2.0 or 0.2.0-rc.1, got ${JSON.stringify(values.version)}\n`,
  );
  process.exit(2);
}
const out = resolve(
  process.env.INIT_CWD ?? process.cwd(),
  values.out ?? resolve(root, DEFAULT_OUT),
);
try {
  const result = buildRelease({
    root,
    out,
    ...(values.version ? { version: values.version } : {}),
    nativeModule: !values["without-native-module"],
  });
  if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    const shown = relative(process.env.INIT_CWD ?? process.cwd(), out) || ".";
    process.stdout.write(formatSizes(result, shown.startsWith("..") ? out : `./${shown}`));
  }
} catch (error) {
  process.stderr.write(`release: ${(error as Error).message}\n`);
  process.exit(1);
}
