// Bundles the view's page script (src/view/page, with @toolledger/core and zod inside) into
// one file that `toolledger view` inlines into every page: dist/view/page.bundle.js.
import { build } from "esbuild";

const root = new URL("..", import.meta.url);
const result = await build({
  entryPoints: [new URL("src/view/page/main.ts", root).pathname],
  outfile: new URL("dist/view/page.bundle.js", root).pathname,
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  minify: true,
  legalComments: "none",
  // Workspace packages from their sources, as the tests read them.
  conditions: ["@toolledger/source"],
  logLevel: "warning",
  metafile: true,
});
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
process.stderr.write(`view page bundled: ${(bytes / 1024).toFixed(0)} KiB\n`);
