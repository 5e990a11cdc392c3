/** One definition awaiting a decision: changed since approved, or never approved (new, flagged). */
export interface AwaitingItem {
  kind: string;
  status: string;
}

/**
 * P2, in words, for definitions that await approval under `quarantine`: a changed one is
 * still served as it was approved and only its use is refused; a new or flagged one is not
 * served at all. `… await approval: <this>`.
 */
export function whatAwaitingMeans(items: readonly AwaitingItem[]): string {
  const changed = items.filter((i) => i.status === "changed");
  const fresh = items.length - changed.length;
  const them = changed.length === 1 ? "it" : "them";
  // A tool's use is a call; a prompt's a prompts/get.
  const refused = changed.every((i) => i.kind === "tool")
    ? `calls to ${them} are refused`
    : `using ${them} is refused`;
  if (fresh === 0)
    return `${changed.length === 1 ? "its approved definition is" : "their approved definitions are"} still served; only ${refused} until you approve`;
  if (changed.length === 0)
    return `${fresh === 1 ? "it is" : "they are"} not served until you approve`;
  return `the changed ${changed.length === 1 ? "one is" : "ones are"} still served as approved (only ${refused}), the new ${fresh === 1 ? "one is" : "ones are"} not served, until you approve`;
}
