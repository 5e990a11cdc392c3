/**
 * S1: the ranking's parameters. BM25F: each field's term count is weighted and normalised by
 * the field's length, then saturated once per term; a query word also finds the other words
 * of its synonym group at a lower weight. Tuned on half of the labelled queries (bench).
 */
export const RANKING = Object.freeze({
  k1: 1.2,
  /** Length normalisation per field: name, title, description, argument names, argument descriptions. */
  b: [0.5, 0.5, 0.75, 0.5, 0.75] as readonly number[],
  /** Field weights, same order. */
  weights: [3, 2, 1, 0.7, 0.4] as readonly number[],
  /** The weight of a synonym's match against the word's own. */
  synonymWeight: 0.6,
});

/**
 * The length a field is normalised against: the server's own average, drawn towards a typical
 * tool's by PRIOR_TOOLS pseudo-tools, so a one-tool server is not its own yardstick. Per server,
 * so a ToolsFetched re-indexes that server alone (registry size never enters).
 */
export const TYPICAL_LENGTHS: readonly number[] = [3, 2, 20, 4, 25];
export const PRIOR_TOOLS = 10;
