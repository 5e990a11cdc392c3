import type { DoctorFinding } from "./doctorFinding.js";

/**
 * better-sqlite3's native module: does it load in this Node? Without it no SQLite database
 * opens (a PostgreSQL one still does). What to do depends on why it does not load.
 */
export async function checkSqliteModule(): Promise<DoctorFinding> {
  const { checkNativeModule } = await import("@toolledger/store-sqlite");
  const result = checkNativeModule();
  const subject = result.driver ? `better-sqlite3 ${result.driver.version}` : "better-sqlite3";
  if (result.ok)
    return {
      check: "sqlite",
      subject,
      status: "ok",
      message: `its native module loads (SQLite ${result.sqlite}, Node ABI ${process.versions.modules})`,
    };
  if (result.driver?.dir.includes("/.pnpm/"))
    return {
      check: "sqlite",
      subject,
      status: "fail",
      message: `its native module does not load: ${result.error}`,
      fix: "in this source checkout: pnpm rebuild better-sqlite3 (offline, with npm_config_nodedir set to Node's headers, e.g. /usr)",
    };
  const where = result.driver ? `cd ${result.driver.dir} && ` : "";
  const build = `${where}npm run build-release (needs python3, make and a C++ compiler; offline, set npm_config_nodedir to Node's headers, e.g. /usr with Debian's nodejs)`;
  const fix =
    result.problem === "wrong_node"
      ? `it was built for another Node version: rebuild it for this one: ${build}`
      : result.problem === "missing"
        ? `its install script was skipped or failed (npm's allow-scripts, --ignore-scripts, or no network for the prebuilt binary): reinstall with npm i -g toolledger --allow-scripts=better-sqlite3, or build it: ${build}`
        : `rebuild it: ${build}`;
  return {
    check: "sqlite",
    subject,
    status: "fail",
    message: `its native module does not load: ${result.error}`,
    fix,
  };
}
