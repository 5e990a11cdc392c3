/** A word as a POSIX shell reads it back unchanged (for the commands the CLI suggests). */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
