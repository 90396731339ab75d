import { accessSync, closeSync, constants, createReadStream, openSync, readSync, statSync } from "node:fs";
import { request } from "undici";
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

export function createAdminClient(baseUrl: string, token: string): AdminClient {
  return {
    async call(method, path, body) {
      const file = body instanceof FileBody ? body : undefined;
      file?.mustBeReadable();
      const res = await request(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(file ? { "content-type": file.contentType() } : {}),
          ...(body === undefined || file ? {} : { "content-type": "application/json" }),
        },
        body: file ? createReadStream(file.path) : body === undefined ? undefined : JSON.stringify(body),
        // A statement is uploaded, then read and matched before the answer: the server's own limits
        // (PAYINTAKE_UPLOAD_TIMEOUT_MS, at most two hours) end a slow one, not the CLI.
        headersTimeout: file ? 3 * 3_600_000 : 30_000,
        bodyTimeout: 30_000,
      });
      const text = await res.body.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = { success: false, message: text.slice(0, 200) };
      }
      return { status: res.statusCode, json };
    },

    async download(path) {
      const res = await request(`${baseUrl}${path}`, {
        method: "GET",
        headers: { authorization: `Bearer ${token}` },
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
      });
      const bytes = Buffer.from(await res.body.arrayBuffer());
      const header = res.headers["x-payout-notices"];
      const notices =
        typeof header === "string" ? (JSON.parse(decodeURIComponent(header)) as FileNotice[]) : [];
      let json: unknown = null;
      if (res.statusCode >= 400) {
        try {
          json = JSON.parse(bytes.toString("utf8"));
        } catch {
          json = { success: false, message: bytes.toString("utf8").slice(0, 200) };
        }
      }
      return { status: res.statusCode, bytes, json, notices };
    },
  };
}
