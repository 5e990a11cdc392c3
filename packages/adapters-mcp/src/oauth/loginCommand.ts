/** The command that authorizes a server from a terminal (its name shell-quoted when it must be). */
export function loginCommand(name: string): string {
  const quoted = /^[\w.@%+=:,/-]+$/.test(name) ? name : `'${name.replaceAll("'", "'\\''")}'`;
  return `toolledger auth login ${quoted}`;
}
