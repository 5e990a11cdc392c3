// better-sqlite3 falls back to compiling from source when its prebuilt binary cannot be
// downloaded (offline machines). node-gyp then needs Node's headers; where the system ships
// them for this exact Node version, point node-gyp there instead of downloading them.
// pnpm does not pass an .npmrc `nodedir` on to build scripts, but it does pass its env.
const fs = require("node:fs");
const path = require("node:path");

if (!process.env.npm_config_nodedir) {
  for (const dir of [path.resolve(process.execPath, "../.."), "/usr", "/usr/local"]) {
    try {
      const header = fs.readFileSync(path.join(dir, "include/node/node_version.h"), "utf8");
      const v = (name) => header.match(new RegExp(`#define ${name} (\\d+)`))?.[1];
      if (`v${v("NODE_MAJOR_VERSION")}.${v("NODE_MINOR_VERSION")}.${v("NODE_PATCH_VERSION")}` === process.version) {
        process.env.npm_config_nodedir = dir;
        break;
      }
    } catch {
      // no headers there; try the next candidate
    }
  }
}

module.exports = { hooks: {} };
