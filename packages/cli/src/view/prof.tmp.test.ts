import { readFileSync } from "node:fs";
import { evolve, initialState } from "@toolledger/core";
import { test } from "vitest";
import { SessionTimeline } from "./sessionTimeline.js";

test("prof", () => {
  const events = readFileSync("/tmp/tv/long.jsonl", "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  let t = performance.now();
  let s = initialState();
  for (const e of events) s = evolve(s, e);
  console.log("evolve only", performance.now() - t);
  t = performance.now();
  const tl = new SessionTimeline(events.map((e, i) => ({ p: i + 1, e })));
  console.log("timeline", performance.now() - t, tl.length);
});
