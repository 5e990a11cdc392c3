import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolledgerEvent } from "@toolledger/core";
import { describe, expect, test } from "vitest";
import { sampleLog, toJsonl } from "../../testing/sampleLog.js";
import { testDeps } from "../../testing/testDeps.js";
import { EXIT } from "../program/exitCodes.js";
import { run } from "../program/run.js";

const ESC = String.fromCharCode(27);
const stripAnsi = (text: string) =>
  text
    .split(ESC)
    .map((part, i) => (i === 0 ? part : part.replace(/^\[\d+m/, "")))
    .join("");

describe("terminal behaviour", () => {
  test("colours on a terminal, none with NO_COLOR, none when piped", async () => {
    const tty = testDeps({ tty: true });
    const file = join(tty.dir, "log.jsonl");
    writeFileSync(file, toJsonl(sampleLog().entries));
    expect(await run(["replay", file], tty.deps)).toBe(EXIT.ok);
    expect(tty.stdout()).toContain("\u001b[36mToolsFetched");
    const noColor = testDeps({ tty: true, env: { NO_COLOR: "1" } });
    await run(["replay", file], noColor.deps);
    expect(noColor.stdout()).not.toContain("\u001b[");
    const piped = testDeps();
    await run(["replay", file], piped.deps);
    expect(piped.stdout()).not.toContain("\u001b[");
    expect(piped.stdout()).toBe(stripAnsi(tty.stdout()));
  });

  test("errors are coloured on a terminal stderr only", async () => {
    const tty = testDeps({ tty: true });
    await run(["replya"], tty.deps);
    expect(tty.stderr()).toContain("\u001b[31mtoolledger:");
    const piped = testDeps();
    await run(["replya"], piped.deps);
    expect(piped.stderr()).toMatch(/^toolledger: unknown command/);
  });

  test("replay shows progress on a terminal stderr for long logs, and keeps stdout clean", async () => {
    const events: ToolledgerEvent[] = [
      {
        type: "ExtensionAdded",
        v: 1,
        name: "x",
        kind: "stdio",
        exposeUnprefixed: false,
        hidden: false,
        availableTools: [],
        configFingerprint: "f",
      },
    ];
    for (let i = 0; i < 2100; i++) events.push({ type: "ToolsInvalidated", v: 1, extension: "x" });
    const tty = testDeps({ tty: true });
    const file = join(tty.dir, "long.jsonl");
    writeFileSync(file, events.map((e) => JSON.stringify(e)).join("\n"));
    expect(await run(["replay", file, "--jsonl"], tty.deps)).toBe(EXIT.ok);
    expect(tty.stderr()).toContain("\rreplaying 2000/2101");
    expect(tty.stdout().trim().split("\n")).toHaveLength(2101);
    const piped = testDeps();
    await run(["replay", file, "--jsonl"], piped.deps);
    expect(piped.stderr()).toBe("");
  });
});
