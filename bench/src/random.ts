export { seededRandom } from "@toolledger/core/testing/seededRandom";

/** An integer in [0, n). */
export function pick(random: () => number, n: number): number {
  return Math.floor(random() * n);
}
