/**
 * `sending 412 would have saved 82% with deferral lookup` (or `cost 5% more`, for a registry
 * so small that `enable_tools` outweighs what deferral leaves out). Shared by the CLI's token
 * line and the view's page, so it imports nothing.
 */
export function lookupSaving(deferralOff: number, lookup: number): string {
  const saved = deferralOff === 0 ? 0 : Math.round((1 - lookup / deferralOff) * 100);
  return `sending ${lookup.toLocaleString("en-US")} would have ${saved >= 0 ? `saved ${saved}%` : `cost ${-saved}% more`} with deferral lookup`;
}
