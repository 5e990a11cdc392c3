import {
  describeLoadError,
  driverDirOf,
  nativeModuleFix,
  nativeModuleProblem,
} from "../program/nativeModuleAdvice.js";
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
  const error = result.error ?? "";
  return {
    check: "sqlite",
    subject,
    status: "fail",
    message: `its native module does not load: ${describeLoadError(error)}`,
    // The folder the loader searched is the one to rebuild in (it is where it was loaded from).
    fix: nativeModuleFix(
      result.problem ?? nativeModuleProblem(error),
      driverDirOf(error) ?? result.driver?.dir ?? null,
    ),
  };
}
