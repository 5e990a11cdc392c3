/**
 * A second process writing goose's database the way goose does while it runs (one turn after
 * another, `add_message` in IMMEDIATE transactions, now and then a compaction that rewrites the
 * conversation), for the test that imports while it writes. Bundled by the test with esbuild
 * and run with plain node: `node writer.mjs <db> <session> <milliseconds>`. Prints `ready`
 * after its first write and, at the end, `done <turns> <errors>`.
 */
import { GooseDatabase } from "./gooseDatabase.js";
import { call, toolResponse } from "./gooseMessages.js";

const [file, session, ms] = process.argv.slice(2);
const g = GooseDatabase.open(file!);
const until = Date.now() + Number(ms);
let turns = 0;
let errors = 0;
let t = 1_800_000_000;
while (Date.now() < until) {
  try {
    g.addMessages(
      session!,
      ...call(t, `w${turns}`, "developer__shell", { n: turns }, toolResponse(`w${turns}`, "ok")),
    );
    g.recordUsage(session!, { input: 10, output: 5, created: t + 1 });
    if (turns % 25 === 24) g.compact(session!, t + 2, `summary ${turns}`, false);
    t += 3;
    turns++;
    if (turns === 1) process.stdout.write("ready\n");
  } catch (error) {
    errors++;
    process.stderr.write(`${String(error)}\n`);
  }
}
g.close();
process.stdout.write(`done ${turns} ${errors}\n`);
