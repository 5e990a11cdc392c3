import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EVENT_CATALOG, EVENT_CATALOG_VERSION } from "@toolledger/core";
import { SCHEMA_VERSION as POSTGRES_SCHEMA } from "@toolledger/store-postgres";
import { SCHEMA_VERSION as SQLITE_SCHEMA } from "@toolledger/store-sqlite";
import { describe, expect, it } from "vitest";
import { REPO } from "../../testing/freshInstall.js";

// Issue 25: CHANGELOG.md names, per release, the rules and the event versions it changes and
// the stores' schema versions; this keeps it in step with docs/rules.md, the catalogue and
// the stores, so a rule or an event cannot ship without a line saying so.

const changelog = readFileSync(join(REPO, "CHANGELOG.md"), "utf8");
const version = (
  JSON.parse(readFileSync(join(REPO, "packages", "cli", "package.json"), "utf8")) as {
    version: string;
  }
).version;
const all = changelog
  .split(/^## /m)
  .slice(1)
  .map((s) => ({ heading: s.split("\n")[0]!.trim(), body: s }));
const sections = all.filter((s) => !/^unreleased$/i.test(s.heading));
const current = sections[0];

/** Rule ids a text names, ranges (`C1–C5`) expanded. */
function ruleIds(text: string): Set<string> {
  const ids = new Set<string>();
  for (const m of text.matchAll(/\b([A-Z])(\d{1,2})(?:[–-]\1?(\d{1,2}))?\b/g)) {
    const from = Number(m[2]);
    const to = m[3] === undefined ? from : Number(m[3]);
    for (let n = from; n <= to; n++) ids.add(`${m[1]}${n}`);
  }
  return ids;
}

describe("CHANGELOG.md", () => {
  it("starts with this release (after changes not released yet, if any)", () => {
    expect(current?.heading).toBe(version);
  });

  it("lists each event catalogue's events, with their versions, under the release that added it", () => {
    for (const catalogue of EVENT_CATALOG) {
      const section = all.find((s) =>
        new RegExp(`\\*\\*Event catalogue ${catalogue.version}\\b`).test(s.body),
      );
      expect(section, `no release names event catalogue ${catalogue.version}`).toBeDefined();
      for (const event of catalogue.added) {
        const [type, v] = event.split("@");
        expect(section!.body, `${event} in ${section!.heading}`).toMatch(
          new RegExp(`\`${type}\`\\s+v${v}\\b`),
        );
      }
      for (const change of catalogue.changed ?? []) {
        const [type, v] = change.split(": ")[0]!.split("@");
        expect(section!.body, `${change} in ${section!.heading}`).toMatch(
          new RegExp(`\`${type}\`\\s+v${v}\\b`),
        );
      }
    }
    expect(current!.body).toContain(`**Event catalogue ${EVENT_CATALOG_VERSION}**`);
  });

  it("names this release's store schema versions", () => {
    expect(current!.body).toContain(`SQLite schema ${SQLITE_SCHEMA}`);
    expect(current!.body).toContain(`PostgreSQL schema ${POSTGRES_SCHEMA}`);
  });

  it("names every rule of docs/rules.md in the release that added it", () => {
    const rules = readFileSync(join(REPO, "docs", "rules.md"), "utf8");
    const defined = [...rules.matchAll(/\*\*([A-Z]\d{1,2}) —/g)].map((m) => m[1]!);
    expect(defined.length).toBeGreaterThan(30);
    const named = new Set<string>();
    for (const s of all) {
      const line = s.body.split("\n- ").find((l) => /^\*\*Rules( added)?\*\*/.test(l)) ?? "";
      for (const id of ruleIds(line)) named.add(id);
    }
    expect(
      defined.filter((id) => !named.has(id)),
      "rules no release names",
    ).toEqual([]);
  });
});
