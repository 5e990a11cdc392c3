/** The STILL ENABLED cell of an enable request, in one form for `audit` and the demo's table. */
export function stillEnabledLabel(r: {
  stillEnabled: readonly string[];
  ended: { position: number; by: string } | null;
}): string {
  if (r.stillEnabled.length > 0) return "yes";
  if (r.ended) return `no: ${endedBy(r.ended.by)} at ${r.ended.position}`;
  return "-";
}

function endedBy(by: string): string {
  return by === "Cleared"
    ? "cleared"
    : by === "Compacted"
      ? "compacted away"
      : "call id answered again";
}
