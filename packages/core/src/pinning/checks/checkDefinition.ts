import type { PinFinding } from "../pinEvents.js";
import { findEncodedPayloads } from "./encodedPayloads.js";
import { findInstructionPhrases } from "./instructionPhrases.js";
import { findInvisibleCharacters } from "./invisibleCharacters.js";
import { normalizeForMatching } from "./normalizedText.js";
import { findShadowing, type ShadowingContext } from "./shadowing.js";
import { textFields } from "./textFields.js";

/** At most this many findings are kept per definition (the first of each check come first). */
export const FINDING_LIMIT = 20;

/**
 * P3: the checks that quarantine a definition even at first sight, on its raw text (before
 * any normalisation): invisible characters, cross-server shadowing, encoded payloads and
 * instruction phrases. Deterministic and offline: the same definition and context always
 * give the same findings, in the same order.
 */
export function checkDefinition(definition: unknown, context: ShadowingContext): PinFinding[] {
  const findings: PinFinding[] = [];
  for (const { field, text } of textFields(definition)) {
    if (text.length === 0) continue;
    const normalized = normalizeForMatching(text);
    findings.push(
      ...findInvisibleCharacters(text, field),
      ...findShadowing(text, field, context, normalized),
      ...findEncodedPayloads(text, field),
      ...findInstructionPhrases(text, field, normalized),
    );
  }
  return findings.slice(0, FINDING_LIMIT);
}
