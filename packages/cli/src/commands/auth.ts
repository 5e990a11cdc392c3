import { usageError } from "../program/cliError.js";
import type { Deps } from "../program/deps.js";
import { startCommand } from "../program/startCommand.js";
import { authSpec } from "./authSpec.js";

const ACTIONS = ["login", "status", "logout"] as const;

/** `toolledger auth login|status|logout`: each action in its own file, loaded when asked for. */
export async function authCommand(args: readonly string[], deps: Deps): Promise<number> {
  const cmd = startCommand(authSpec, args, deps);
  if (!cmd) return 0;
  const action = cmd.parsed.positionals[0]!;
  if (!(ACTIONS as readonly string[]).includes(action))
    throw usageError(
      `auth: unknown action ${JSON.stringify(action)}; the actions are ${ACTIONS.join(", ")}`,
      "auth",
    );
  if (action === "login") return (await import("./authLogin.js")).authLogin(cmd, deps);
  if (action === "logout") return (await import("./authLogout.js")).authLogout(cmd, deps);
  return (await import("./authStatus.js")).authStatus(cmd, deps);
}
