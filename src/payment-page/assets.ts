import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

/**
 * The payment page's files, as the server sends them: the HTML names its scripts and stylesheet
 * under a version made from the content of all of them (`/t/assets/<version>/page.js`), so those
 * can be cached for good while the HTML itself is never cached; each is sent brotli- or
 * gzip-compressed when the browser takes it. Compressed once per process, on first use, in the
 * thread pool: at the highest levels (the files never change while the process runs), without
 * a build step that a server run from src/ (tests, tsx) would skip.
 */
const ASSETS = new URL("./browser/", import.meta.url);
export const ASSET_FILES = {
  "page.js": "text/javascript",
  "page-text.js": "text/javascript",
  "amount.js": "text/javascript",
  "page.css": "text/css",
} as const;
export type AssetName = keyof typeof ASSET_FILES;
export const isAssetName = (name: string): name is AssetName => Object.hasOwn(ASSET_FILES, name);

export type Encoding = "br" | "gzip" | "identity";

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

function compress(body: Buffer, encoding: Exclude<Encoding, "identity">): Promise<Buffer> {
  if (encoding === "gzip") return gzipAsync(body, { level: 9 });
  return brotli(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

/**
 * The encoding to answer with: brotli, else gzip, else none, as Accept-Encoding allows (a coding
 * given `q=0` is refused; `*` stands for any coding not named).
 */
export function chooseEncoding(header: string | undefined): Encoding {
  const accepted = new Map<string, number>();
  for (const part of (header ?? "").toLowerCase().split(",")) {
    const [coding = "", ...params] = part.trim().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (coding) accepted.set(coding.trim(), q ? Number(q.slice(2)) : 1);
  }
  const takes = (coding: string) => (accepted.get(coding) ?? accepted.get("*") ?? 0) > 0;
  if (takes("br")) return "br";
  if (takes("gzip")) return "gzip";
  return "identity";
}

export interface PageFile {
  body: Buffer;
  type: string;
  /** The body in `encoding`, compressed on first use and kept. */
  encoded(encoding: Encoding): Promise<Buffer>;
}

function pageFile(body: Buffer, type: string): PageFile {
  const kept = new Map<Encoding, Promise<Buffer>>();
  return {
    body,
    type,
    encoded(encoding) {
      if (encoding === "identity") return Promise.resolve(body);
      let done = kept.get(encoding);
      if (!done) {
        done = compress(body, encoding);
        kept.set(encoding, done);
      }
      return done;
    },
  };
}

export interface PageAssets {
  /** A hash of every file the page loads: part of their paths, so any change is a new path. */
  version: string;
  html: PageFile;
  files: Record<AssetName, PageFile>;
}

export function loadPageAssets(): PageAssets {
  const raw = Object.fromEntries(
    Object.keys(ASSET_FILES).map((name) => [name, readFileSync(new URL(name, ASSETS))]),
  ) as Record<AssetName, Buffer>;
  const hash = createHash("sha256");
  for (const [name, body] of Object.entries(raw)) hash.update(name).update(body);
  const version = hash.digest("base64url").slice(0, 12);
  // page.js imports its modules by relative path ("./amount.js"): under the same versioned folder,
  // they need no rewriting.
  const html = readFileSync(new URL("page.html", ASSETS), "utf8").replaceAll(
    "/t/assets/",
    `/t/assets/${version}/`,
  );
  const files = Object.fromEntries(
    Object.entries(raw).map(([name, body]) => [
      name,
      pageFile(body, `${ASSET_FILES[name as AssetName]}; charset=utf-8`),
    ]),
  ) as Record<AssetName, PageFile>;
  return { version, html: pageFile(Buffer.from(html), "text/html; charset=utf-8"), files };
}
