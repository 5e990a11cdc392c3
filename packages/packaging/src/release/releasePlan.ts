/** One workspace package as the release publishes it. */
export interface ReleasedPackage {
  /** Folder under the repository root. */
  dir: string;
  kind: "library" | "command";
  /** `exports` subpaths that stay in the workspace: test kits, not for users. */
  unpublishedExports: readonly string[];
  /** Built scripts started by path (not imported), shipped with what they import. */
  scripts: readonly string[];
  /** Files read at run time by path: `from` relative to the repository root, `to` to the package. */
  assets: readonly { from: string; to: string }[];
}

/**
 * The libraries, in dependency order, and the command. The command ships the libraries
 * inside its tarball (`bundleDependencies`): `npm i -g toolledger-<v>.tgz` then fetches only
 * registry packages, and the libraries inside are byte for byte the library tarballs.
 */
export const RELEASED_PACKAGES: readonly ReleasedPackage[] = [
  {
    dir: "packages/core",
    kind: "library",
    unpublishedExports: ["./testing", "./testing/*"],
    scripts: [],
    assets: [],
  },
  {
    dir: "packages/store-sqlite",
    kind: "library",
    unpublishedExports: [],
    scripts: [],
    assets: [],
  },
  {
    dir: "packages/store-postgres",
    kind: "library",
    unpublishedExports: ["./testing", "./vitest"],
    scripts: [],
    assets: [],
  },
  {
    dir: "packages/adapters-mcp",
    kind: "library",
    unpublishedExports: [],
    // exampleServers(): the notebook and calculator the demo starts. The other servers under
    // dist/servers are test servers and stay in the workspace.
    scripts: ["dist/servers/notes.js", "dist/servers/calculator.js"],
    assets: [],
  },
  {
    dir: "packages/cli",
    kind: "command",
    unpublishedExports: [],
    scripts: [],
    assets: [
      // `view` inlines the page's script; `explain` and `view` link the rules.
      { from: "packages/cli/dist/view/page.bundle.js", to: "dist/view/page.bundle.js" },
      { from: "docs/rules.md", to: "docs/rules.md" },
      { from: "CHANGELOG.md", to: "CHANGELOG.md" },
    ],
  },
];

/** The command's name on the registry: what users type, `npm i -g toolledger`. */
export const COMMAND_NAME = "toolledger";

/** Where the tarballs go, relative to the repository root, unless `--out` says otherwise. */
export const DEFAULT_OUT = "release";
