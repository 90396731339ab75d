/**
 * The payment page's files, as the server sends them: the HTML names its scripts under a version
 * made from the content of all of them (`/t/assets/<version>/page.js`), so those can be cached for
 * good while the HTML itself is never cached; each is sent brotli- or gzip-compressed when the
 * browser takes it. Compressed once per process, on first use, in the thread pool: at the highest
 * levels (the files never change while the process runs), without a build step that a server run
 * from src/ (tests, tsx) would skip.
 *
 * The stylesheet is in the HTML (`<style>`, allowed by its hash in the CSP), and so is the session's
 * status (routes.ts): on a phone's slow link each file the first screen waits for is a round trip
 * more. page.css stays served under the version for a page from the release before (a rolling
 * deploy). The HTML with a status in it is the one body compressed per answer, at a quick level.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

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

/**
 * `max` for the files compressed once per process; `quick` for a page compressed per answer, where
 * brotli's highest level costs some 15 ms of CPU to save a few hundred bytes.
 */
type Effort = "max" | "quick";

function compress(body: Buffer, encoding: Exclude<Encoding, "identity">, effort: Effort): Promise<Buffer> {
  if (encoding === "gzip") return gzipAsync(body, { level: effort === "max" ? 9 : 6 });
  return brotli(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: effort === "max" ? constants.BROTLI_MAX_QUALITY : 5,
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
        done = compress(body, encoding, "max");
        kept.set(encoding, done);
      }
      return done;
    },
  };
}

/** A body made for one answer (the page with its status), compressed for it alone. */
export function onePageFile(body: Buffer, type: string): PageFile {
  return {
    body,
    type,
    encoded: (encoding) =>
      encoding === "identity" ? Promise.resolve(body) : compress(body, encoding, "quick"),
  };
}

/** What comes before and after `at` in `text`, where `at` must be there exactly once. */
function splitOnce(text: string, at: string): [string, string] {
  const parts = text.split(at);
  if (parts.length !== 2) throw new Error(`page.html: expected ${at} once`);
  return parts as [string, string];
}

/**
 * The session's status as the page reads it (page.js), in a JSON data block: JSON the status
 * endpoint would answer, with `<`, `>` and `&` escaped (only ever inside its strings) so that no
 * text from outside (a shop's name, a reference) can close the block or open markup; U+2028 and
 * U+2029 too, which some parsers take for line ends.
 */
export function statusBlock(json: string): string {
  const escaped = json.replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `<script type="application/json" id="status">${escaped}</script>`;
}
const EMPTY_STATUS = '<script type="application/json" id="status"></script>';

export interface PageAssets {
  /** A hash of every file the page loads: part of their paths, so any change is a new path. */
  version: string;
  /** The page with no status in it: page.js then asks for it. */
  html: PageFile;
  /** The page with the status the server read for it (its `statusBlock`). */
  withStatus(block: string): PageFile;
  /** The CSP source that allows the page's one inline stylesheet: `'sha256-…'`. */
  styleHash: string;
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
  const template = readFileSync(new URL("page.html", ASSETS), "utf8").replaceAll(
    "/t/assets/",
    `/t/assets/${version}/`,
  );
  const css = raw["page.css"].toString("utf8");
  if (css.includes("</")) throw new Error("page.css: no '</' inside a <style>");
  const html = splitOnce(template, `<link rel="stylesheet" href="/t/assets/${version}/page.css">`).join(
    `<style>${css}</style>`,
  );
  const [before, after] = splitOnce(html, EMPTY_STATUS);
  const files = Object.fromEntries(
    Object.entries(raw).map(([name, body]) => [
      name,
      pageFile(body, `${ASSET_FILES[name as AssetName]}; charset=utf-8`),
    ]),
  ) as Record<AssetName, PageFile>;
  const type = "text/html; charset=utf-8";
  return {
    version,
    html: pageFile(Buffer.from(html), type),
    withStatus: (block) => onePageFile(Buffer.from(before + block + after), type),
    styleHash: `'sha256-${createHash("sha256").update(css).digest("base64")}'`,
    files,
  };
}
