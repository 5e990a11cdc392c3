import type { PinFinding } from "../pinEvents.js";
import { excerpt } from "./invisibleCharacters.js";
import { type NormalizedText, normalizeForMatching } from "./normalizedText.js";

/**
 * P3: phrases that address the model rather than describe a tool, matched on NFKC-normalised,
 * lowercased text with invisible characters dropped. The list is documented in
 * docs/rules.md (P3) and kept short on purpose: each entry is a pattern published tool
 * poisoning uses and ordinary tool documentation does not (a clean catalog of a hundred
 * real tools raises nothing, tested).
 */
export const INSTRUCTION_PHRASES: readonly { id: string; pattern: RegExp; what: string }[] = [
  {
    id: "override",
    pattern:
      /\b(?:ignore|disregard|forget|override)\s(?:all\s|any\s|the\s|your\s)*(?:previous|prior|above|earlier|preceding|other|system|original)\s(?:instructions?|prompts?|messages?|rules|directions|guidelines)\b/,
    what: "tells the model to drop its instructions",
  },
  {
    id: "conceal",
    pattern:
      /\b(?:do\snot|don't|never|must\snot)\s(?:tell|inform|notify|alert|warn|show|mention\s(?:this|it|that)\sto|reveal\s(?:this|it|that)\sto)\s(?:the\s)?user\b/,
    what: "tells the model to keep something from the user",
  },
  {
    id: "conceal",
    pattern: /\bwithout\s(?:telling|informing|notifying|alerting|asking|showing)\s(?:the\s)?user\b/,
    what: "tells the model to act without the user knowing",
  },
  {
    id: "conceal",
    pattern:
      /\b(?:hide|conceal)\s(?:this|it|that|these)\s(?:from|to)\s(?:the\s)?user\b|\bthe\suser\s(?:must|should|may)\s(?:not|never)\s(?:know|see|be\stold|find\sout|notice)\b|\bkeep\s(?:this|it|that)\s(?:a\s)?secret\b/,
    what: "tells the model to keep something from the user",
  },
  {
    id: "tag",
    pattern:
      /<\s*\/?\s*(?:important|system|instructions?|secret|hidden|admin|assistant|im_start|im_end)\s*>|\[\s*(?:system|inst|\/inst)\s*\]/,
    what: "a markup block that poses as instructions to the model",
  },
  {
    id: "precondition",
    pattern:
      /\b(?:before|prior\sto)\s(?:using|calling|invoking|running)\s(?:this|any|the|other)\s(?:tool|function)s?\b[^.]{0,80}\b(?:you\s)?(?:must|need\sto|have\sto|always|first)\s(?:read|send|pass|include|call|fetch|upload|copy|cat|open)\b/,
    what: "makes the model do something else first",
  },
  {
    id: "secret-files",
    pattern:
      /~\/\.ssh|\bid_(?:rsa|ed25519|ecdsa)\b|\/etc\/(?:passwd|shadow)\b|\.aws\/credentials|claude_desktop_config\.json|\bmcp\.json\b|\.cursor\/mcp|\.env\b(?:\sfile)?/,
    what: "names a file of secrets or of MCP configuration",
  },
  {
    id: "exfiltrate",
    pattern:
      /\b(?:send|post|upload|transmit|forward|exfiltrate|leak|copy)\s(?:the\s|all\s|any\s|every\s|its\s|their\s)*(?:conversation|chat|history|contents?|data|files?|messages?|keys?|secrets?|credentials?|tokens?|passwords?)\b[^.]{0,60}\b(?:to|into)\s(?:https?:|ftp:|the\s(?:following|url|address|server|endpoint)|\S+@)/,
    what: "tells the model to send data somewhere",
  },
  {
    id: "persona",
    pattern:
      /\byou\s(?:are|will\sbe)\snow\b|\bnew\s(?:system\s)?instructions?\s*:|\bsystem\sprompt\b/,
    what: "addresses the model's own instructions",
  },
  {
    id: "coercion",
    pattern:
      /\botherwise\s(?:the|this)\s(?:tool|system|server|function)\s(?:will\s)?(?:not\swork|fail|break|crash|stop)\b/,
    what: "coerces the model with a made-up failure",
  },
];

/** P3: every instruction phrase of `text`. */
export function findInstructionPhrases(
  text: string,
  field: string,
  normalized: NormalizedText = normalizeForMatching(text),
): PinFinding[] {
  const findings: PinFinding[] = [];
  for (const phrase of INSTRUCTION_PHRASES) {
    const m = phrase.pattern.exec(normalized.text);
    if (!m) continue;
    const index = rawIndex(normalized, m.index);
    findings.push({
      check: "instruction",
      field,
      index,
      excerpt: excerpt(text, index, m[0].length),
      detail: `${phrase.what}: ${JSON.stringify(m[0])}`,
    });
  }
  return findings;
}

export function rawIndex(normalized: NormalizedText, at: number): number {
  return normalized.raw[at] ?? normalized.raw.at(-1) ?? 0;
}
