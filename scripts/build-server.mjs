// Builds the server's JavaScript into dist/ with esbuild: the CLI and the server bundled into
// dist/bundle/ (cli.js and the chunks it loads on demand: the server, the key rotation, the channel
// simulator), dist/main/cli.js (the `payintake` bin) as the few lines that load it, and the modules
// started or imported by path at run time, each whole in one file: the embedded store's thread
// (dist/store/engine/sqlite-thread.js) and its driver (sqlite-driver.js, which the Node runtimes
// benchmark imports). Run by `npm run build`. Types are checked by `npm run check`, not here.
//
// Why a bundle: a start spent about 0.6 s finding and loading some 1,200 module files (kysely,
// undici, fastify, zod, pg, pino and ours); one bundle loads in a fraction of that, and the test
// suite starts the CLI as a child process hundreds of times (docs/RELIABILITY.md, "The time of CI").
//
// What stays outside: better-sqlite3 (both builds, docs/adr/0011-node-24-beside-node-20.md), a
// native addon loaded by createRequire at run time, which esbuild does not follow; pg-native, pg's
// optional native client, never asked for. Files read or started by a path relative to a module
// (`new URL(…, import.meta.url)`: the store's thread, the payment page's browser files, the
// reference's stylesheet, the console, docs/) resolve as if each module of src/ sat at its own
// place under dist/ (src/a/b.ts at dist/a/b.js): its `import.meta.url` is rewritten to that place.
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "src");
const dist = join(root, "dist");

/** A module's `import.meta.url` as its place under dist/, from the output files in `outdir`. */
function placeUnderDist(outdir) {
  return {
    name: "place-under-dist",
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        const code = await readFile(args.path, "utf8");
        if (!args.path.startsWith(src + sep) || !code.includes("import.meta.url")) return undefined;
        const place = join(dist, relative(src, args.path)).replace(/\.ts$/, ".js");
        const path = relative(outdir, place).split(sep).join("/");
        const url = `new URL(${JSON.stringify(path)}, import.meta.url).href`;
        return { contents: code.replaceAll("import.meta.url", url), loader: "ts" };
      });
    },
  };
}

const common = {
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["better-sqlite3", "better-sqlite3-napi", "pg-native"],
  // The CommonJS packages inside (pg, pino, fastify's own) require Node's modules, and an ES module
  // has no `require`: each output file makes one.
  banner: {
    js: 'import { createRequire as __payintakeRequire } from "node:module"; const require = __payintakeRequire(import.meta.url);',
  },
  // Not read unless asked for (node --enable-source-maps): stack traces name the bundle's lines.
  sourcemap: true,
  legalComments: "none",
  logLevel: "warning",
};

// Chunks are named by content: without this, each build would leave the last one's beside its own.
const bundle = join(dist, "bundle");
await rm(bundle, { recursive: true, force: true });
const engine = join(dist, "store", "engine");
await Promise.all([
  build({
    ...common,
    entryPoints: [join(src, "main", "cli.ts")],
    outdir: bundle,
    splitting: true,
    plugins: [placeUnderDist(bundle)],
  }),
  build({
    ...common,
    entryPoints: [
      join(src, "store", "engine", "sqlite-thread.ts"),
      join(src, "store", "engine", "sqlite-driver.ts"),
    ],
    outdir: engine,
    plugins: [placeUnderDist(engine)],
  }),
]);

const bin = join(dist, "main", "cli.js");
await mkdir(join(dist, "main"), { recursive: true });
await rm(`${bin}.map`, { force: true });
await writeFile(
  bin,
  `#!/usr/bin/env node
// The payintake command: the bundle of src/main/cli.ts (scripts/build-server.mjs).
import "../bundle/cli.js";
`,
);
