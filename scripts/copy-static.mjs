// Copies the files the server reads beside its own modules (the payment page's browser code, the
// reference's stylesheet) from src/ into dist/, where the compiled modules look for them. Run by
// `npm run build`; tsc emits only what it compiles.
import { cpSync } from "node:fs";

const STATIC = ["payment-page/browser", "api-reference/docs.css"];
for (const path of STATIC) {
  cpSync(new URL(`../src/${path}`, import.meta.url), new URL(`../dist/${path}`, import.meta.url), {
    recursive: true,
    filter: (source) => !source.endsWith(".d.ts"),
  });
}
