// Builds the operator console into dist/web/console/: the Preact app bundled and minified by esbuild,
// next to its page and stylesheet. Run by `npm run build` (and so by `npm start` and `npm test`).
import { copyFileSync, mkdirSync } from "node:fs";
import { build } from "esbuild";

const out = new URL("../dist/web/console/", import.meta.url);
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [new URL("../web/console/main.tsx", import.meta.url).pathname],
  outfile: new URL("console.js", out).pathname,
  bundle: true,
  minify: true,
  format: "iife",
  target: ["chrome109", "firefox115", "safari15"],
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  logLevel: "warning",
});
for (const name of ["console.html", "console.css"]) {
  copyFileSync(new URL(`../web/console/${name}`, import.meta.url), new URL(name, out));
}
