import { rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminClient, FileBody, UnreadableFile } from "../../src/main/admin-client.js";

/**
 * The CLI's HTTP client (src/main/admin-client.ts) against a small server that records what it
 * got: the operator API's own answers are tested through the built CLI (test/process/cli.test.ts).
 */
describe("the CLI's admin client", () => {
  let server: Server;
  let url: string;
  const seen: { method?: string; url?: string; headers: IncomingMessage["headers"]; body: Buffer }[] = [];
  const sockets = new Set<unknown>();
  let answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end("{}");

  beforeAll(async () => {
    server = createServer((req, res) => {
      sockets.add(req.socket);
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
        answer(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("sends JSON with the admin token and reads the JSON answer, each call on a connection of its own", async () => {
    answer = (_req, res) => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify({ success: true, id: 7, name: "Ödeme Ağı" }));
    };
    const client = createAdminClient(url, "t".repeat(32));
    const before = seen.length;
    const first = await client.call("POST", "/admin/v1/firms", { name: "Kuzey Market", amount: "10.00" });
    expect(first).toEqual({ status: 201, json: { success: true, id: 7, name: "Ödeme Ağı" } });
    await client.call("GET", "/admin/v1/firms");
    const [post, get] = seen.slice(before);
    expect(post).toMatchObject({ method: "POST", url: "/admin/v1/firms" });
    expect(post?.headers).toMatchObject({
      authorization: `Bearer ${"t".repeat(32)}`,
      "content-type": "application/json",
      "content-length": String(post?.body.length),
      connection: "close",
    });
    expect(JSON.parse(post?.body.toString("utf8") ?? "")).toEqual({ name: "Kuzey Market", amount: "10.00" });
    expect(get?.headers["content-type"]).toBeUndefined();
    expect(get?.body.length).toBe(0);
    expect(sockets.size).toBe(2);
  });

  it("uploads a file as it reads it, typed by its first characters", async () => {
    answer = (_req, res) => res.end(JSON.stringify({ success: true }));
    const path = join(tmpdir(), `payintake-admin-client-${process.pid}.sta`);
    const text = `:20:STATEMENT\n${"x".repeat(300_000)}\n`;
    writeFileSync(path, text);
    const before = seen.length;
    const r = await createAdminClient(url, "t".repeat(32)).call(
      "POST",
      "/admin/v1/statements",
      new FileBody(path),
    );
    expect(r.status).toBe(200);
    const got = seen[before];
    expect(got?.headers["content-type"]).toBe("text/plain");
    expect(got?.body.toString("utf8")).toBe(text);
    const missing = createAdminClient(url, "t".repeat(32)).call("POST", "/x", new FileBody(`${path}.none`));
    await expect(missing).rejects.toBeInstanceOf(UnreadableFile);
    rmSync(path, { force: true });
  });

  it("downloads a file's bytes with the server's notices; a refusal's JSON; an answer that is no JSON", async () => {
    const bytes = Buffer.from([0x3c, 0x3f, 0x78, 0x00, 0xff, 0xc4, 0x9e]);
    const notices = [{ code: "name_shortened", message: "Öztürk kısaltıldı" }];
    answer = (req, res) => {
      if (req.url?.startsWith("/ok")) {
        res.writeHead(200, { "x-payout-notices": encodeURIComponent(JSON.stringify(notices)) });
        res.end(bytes);
      } else if (req.url?.startsWith("/refused")) {
        res.writeHead(409, { "content-type": "application/json" });
        res.end(JSON.stringify({ success: false, code: "payout_batch_stage" }));
      } else {
        res.writeHead(502);
        res.end("Bad Gateway from a proxy");
      }
    };
    const client = createAdminClient(url, "t".repeat(32));
    expect(await client.download("/ok")).toEqual({ status: 200, bytes, json: null, notices });
    expect(await client.download("/refused")).toMatchObject({
      status: 409,
      json: { success: false, code: "payout_batch_stage" },
      notices: [],
    });
    expect(await client.call("GET", "/proxy")).toEqual({
      status: 502,
      json: { success: false, message: "Bad Gateway from a proxy" },
    });
  });

  it("a server that is not there: the call fails with the system's reason", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      createAdminClient(`http://127.0.0.1:${port}`, "t".repeat(32)).call("GET", "/"),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});
