import { isAbsolute, join } from "node:path";

/**
 * Where goose keeps `sessions.db` (block/goose config/paths.rs `Paths::data_dir()` joined with
 * `sessions`): under `$GOOSE_PATH_ROOT/data` when that is set (an absolute path), else the XDG
 * data directory (`$XDG_DATA_HOME/goose`, else `~/.local/share/goose`: goose's etcetera
 * app strategy uses XDG on Linux and macOS), on Windows `%APPDATA%\Block\goose\data`.
 */
export function gooseDatabasePath(
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  platform: NodeJS.Platform = process.platform,
): { path: string; from: string } {
  const root = env.GOOSE_PATH_ROOT;
  if (root && isAbsolute(root))
    return { path: join(root, "data", "sessions", "sessions.db"), from: "$GOOSE_PATH_ROOT" };
  if (platform === "win32") {
    const appData = env.APPDATA || join(home, "AppData", "Roaming");
    return {
      path: join(appData, "Block", "goose", "data", "sessions", "sessions.db"),
      from: "%APPDATA%",
    };
  }
  const xdg = env.XDG_DATA_HOME;
  if (xdg && isAbsolute(xdg))
    return { path: join(xdg, "goose", "sessions", "sessions.db"), from: "$XDG_DATA_HOME" };
  return {
    path: join(home, ".local", "share", "goose", "sessions", "sessions.db"),
    from: "~/.local/share",
  };
}
