import { accessSync, closeSync, constants, createReadStream, openSync, readSync, statSync } from "node:fs";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { pipeline, type Readable } from "node:stream";
import type { FileNotice } from "../payouts/file-download.js";

/** A file the command was given that cannot be read: said as such, not as a server out of reach. */
export class UnreadableFile extends Error {}

/** A file sent as the raw request body, read as it goes (a bank statement may be 90 MB). */
export class FileBody {
  constructor(readonly path: string) {}

  /** Throws UnreadableFile, naming the path and why, unless the file can be read. */
  mustBeReadable(): void {
    try {
      accessSync(this.path, constants.R_OK);
      if (!statSync(this.path).isFile()) throw new Error("a directory, not a file");
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why =
        code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (err as Error).message;
      throw new UnreadableFile(`cannot read ${this.path}: ${why}`);
    }
  }

  /** application/xml for a camt.053 (it starts with "<"), JSON for a bank template, text/plain for an MT940. */
  contentType(): string {
    const fd = openSync(this.path, "r");
    try {
      const head = Buffer.alloc(64);
      const n = readSync(fd, head, 0, 64, 0);
      const start = head
        .subarray(0, n)
        .toString("utf8")
        .replace(/^\uFEFF/, "")
        .trimStart();
      if (start.startsWith("<")) return "application/xml";
      return start.startsWith("{") ? "application/json" : "text/plain";
    } finally {
      closeSync(fd);
    }
  }
}

/** The CLI's door into a running server: the operator API, authenticated with the admin token. */
export interface AdminClient {
  call(
    method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }>;
  /** A GET whose answer is a file (a payout batch's bank file): its bytes, or the refusal's JSON. */
  download(path: string): Promise<{ status: number; bytes: Buffer; json: unknown; notices: FileNotice[] }>;
}

/** One answer, read whole. */
interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One request on a connection of its own, closed after it: the CLI makes one call and exits, and
 * the tests' in-process commands must leave no kept-alive connection counted at the server. Node's
 * own http client, not undici: a CLI process starts in two thirds of the time without loading it.
 * `waitMs`: how long the connection may stay silent before the answer starts, `readMs` after.
 */
function send(
  url: string,
  opts: {
    method: string;
    headers: Record<string, string>;
    body?: string | Readable;
    waitMs: number;
    readMs: number;
  },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = (target.protocol === "https:" ? httpsRequest : httpRequest)(target, {
      method: opts.method,
      headers:
        typeof opts.body === "string"
          ? { ...opts.headers, "content-length": String(Buffer.byteLength(opts.body)) }
          : opts.headers,
      agent: false,
    });
    // One listener for both phases: setTimeout only sets the time, and adds a listener each call.
    let silence = `no answer from the server for ${opts.waitMs / 1000} s`;
    req.on("timeout", () => req.destroy(new Error(silence)));
    req.setTimeout(opts.waitMs);
    req.on("error", reject);
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      silence = `the server's answer stopped for ${opts.readMs / 1000} s`;
      req.setTimeout(opts.readMs);
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    if (typeof opts.body === "string") req.end(opts.body);
    // The file closes whichever way the upload ends. A server that answers before the whole file
    // is up (too large) may close the connection: its answer is still read, not lost to the error.
    else if (opts.body)
      pipeline(opts.body, req, (err) => {
        if (err && !answered) req.destroy(err);
      });
    else req.end();
  });
}

/** The CLI's client of the operator API: a connection per call (`send`). */
export function createAdminClient(baseUrl: string, token: string): AdminClient {
  return {
    async call(method, path, body) {
      const file = body instanceof FileBody ? body : undefined;
      file?.mustBeReadable();
      const res = await send(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(file ? { "content-type": file.contentType() } : {}),
          ...(body === undefined || file ? {} : { "content-type": "application/json" }),
        },
        body: file ? createReadStream(file.path) : body === undefined ? undefined : JSON.stringify(body),
        // A statement is uploaded, then read and matched before the answer: the server's own limits
        // (PAYINTAKE_UPLOAD_TIMEOUT_MS, at most two hours) end a slow one, not the CLI.
        waitMs: file ? 3 * 3_600_000 : 30_000,
        readMs: 30_000,
      });
      const text = res.body.toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = { success: false, message: text.slice(0, 200) };
      }
      return { status: res.status, json };
    },

    async download(path) {
      const res = await send(`${baseUrl}${path}`, {
        method: "GET",
        headers: { authorization: `Bearer ${token}` },
        waitMs: 60_000,
        readMs: 60_000,
      });
      const bytes = res.body;
      const header = res.headers["x-payout-notices"];
      const notices =
        typeof header === "string" ? (JSON.parse(decodeURIComponent(header)) as FileNotice[]) : [];
      let json: unknown = null;
      if (res.status >= 400) {
        try {
          json = JSON.parse(bytes.toString("utf8"));
        } catch {
          json = { success: false, message: bytes.toString("utf8").slice(0, 200) };
        }
      }
      return { status: res.status, bytes, json, notices };
    },
  };
}
