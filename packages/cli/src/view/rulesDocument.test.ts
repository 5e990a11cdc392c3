import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { RULE_SUMMARIES } from "./ruleCatalog.js";
import { githubAnchor, ruleAnchors, viewRules } from "./rulesDocument.js";

describe("links to the rules document", () => {
  test("GitHub's heading anchors", () => {
    expect(githubAnchor("R9 Fetching")).toBe("r9-fetching");
    expect(githubAnchor("**D6** The pairing rule.")).toBe("d6-the-pairing-rule");
    expect(githubAnchor("R14: names every `model` API accepts")).toBe(
      "r14-names-every-model-api-accepts",
    );
  });

  test("headings, list items under a heading, explicit anchors; code blocks skipped; duplicates numbered", () => {
    const md = [
      "# Rules",
      "## 1. Names",
      "- **R1 `nameToKey`.** keys",
      "- **R2** display name",
      "```",
      "## R3 not a heading",
      "```",
      "### R3 Public names",
      "## Deferred",
      "## Deferred",
      '- <a id="d1"></a>**D1 Config.** off or lookup',
      "- **D2 Always-load list.**",
    ].join("\n");
    expect(Object.fromEntries(ruleAnchors(md))).toEqual({
      R1: "1-names",
      R2: "1-names",
      R3: "r3-public-names",
      D1: "d1",
      D2: "deferred-1",
    });
  });

  test("every rule gets its summary; links only when the document exists", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolledger-rules-"));
    const doc = join(dir, "rules.md");
    writeFileSync(doc, "## R9 Fetching\n");
    const rules = viewRules(doc);
    expect(Object.keys(rules)).toEqual(Object.keys(RULE_SUMMARIES));
    expect(rules.R9!.href).toMatch(/^file:\/\/.*rules\.md#r9-fetching$/);
    expect(rules.D6!.href).toMatch(/rules\.md$/);
    expect(viewRules(undefined).R9).toEqual({ id: "R9", ...RULE_SUMMARIES.R9 });
  });
});
