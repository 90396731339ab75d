import { connect } from "node:net";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/harness.js";
import { addAccount } from "../support/merchant.js";
import { camtFile } from "../support/statement-files.js";

/**
 * A body sent slowly: an ordinary request's is cut at PAYINTAKE_REQUEST_TIMEOUT_MS (408 in the
 * envelope, connection closed), while a bank statement upload may take up to its own, longer limit
 * (a large file over a slow link). The limits are set short here so the test takes seconds.
 */
describe("slow bodies", () => {
  let server: TestServer;
  let account: { id: number; iban: string };

  beforeAll(async () => {
    server = await startTestServer("sqlite", {
      LOG_LEVEL: "warn",
      PAYINTAKE_REQUEST_TIMEOUT_MS: "1500",
      PAYINTAKE_UPLOAD_TIMEOUT_MS: "60000",
    });
    account = await addAccount(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Headers at once, then the body a byte at a time every 200 ms; the whole answer once closed. */
  function trickle(path: string, body: string): Promise<{ answer: string; bytesSent: number }> {
    const url = new URL(server.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      let answer = "";
      let sent = 0;
      socket.on("data", (d) => {
        answer += d.toString("utf8");
      });
      socket.on("error", reject);
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      );
      const drip = setInterval(() => {
        if (socket.writable && sent < body.length) socket.write(body[sent++] as string);
      }, 200);
      socket.on("close", () => {
        clearInterval(drip);
        resolve({ answer, bytesSent: sent });
      });
    });
  }

  it("a deposit whose body comes slower than the limit is answered 408 and disconnected", async () => {
    const body = JSON.stringify({
      amount: "100.00",
      first_name: "Ayşe",
      last_name: "Yılmaz",
      pad: "x".repeat(100),
    });
    const { answer, bytesSent } = await trickle("/paymentapi/v1/deposits", body);
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(answer.slice(answer.indexOf("\r\n\r\n") + 4)).toBe(
      '{"success":false,"message":"Request timeout"}',
    );
    // Cut before the whole body came.
    expect(bytesSent).toBeLessThan(body.length);
  }, 30_000);

  it("a statement upload may take longer than an ordinary request: it is read whole and imported", async () => {
    const file = camtFile({
      iban: account.iban,
      entries: [{ amount: "75.00", name: "YAVAS GONDEREN", ref: "SLOW-1", at: Date.now() - 60_000 }],
    });
    const parts = 10;
    const size = Math.ceil(file.length / parts);
    const started = Date.now();
    async function* slowly() {
      for (let i = 0; i < parts; i++) {
        yield Buffer.from(file.slice(i * size, (i + 1) * size));
        await sleep(400);
      }
    }
    const res = await request(`${server.url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${server.adminToken}`,
        "content-type": "application/xml",
        "content-length": String(Buffer.byteLength(file)),
      },
      body: Readable.from(slowly()),
    });
    const json = (await res.body.json()) as Record<string, unknown>;
    // The body took longer than the ordinary limit (1.5 s) and was not cut.
    expect(Date.now() - started).toBeGreaterThan(3_000);
    expect(res.statusCode).toBe(200);
    expect(json).toMatchObject({ lines: 1, credits: 1, unmatched: 1, duplicates: 0 });
  }, 30_000);
});
