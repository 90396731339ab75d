import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signRequest } from "../../src/crypto/signature.js";
import { startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  bodyBytes,
  createFirm,
  newNonce,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

/**
 * Requests Node's HTTP parser refuses before any route sees them (conflicting framing headers,
 * oversized headers) are answered in the envelope, and even at LOG_LEVEL=trace nothing of what they
 * carried reaches the log: Fastify's own handler logged their raw bytes, from which a signed
 * withdrawal could be replayed.
 */
describe("requests the HTTP parser refuses", () => {
  let server: TestServer;
  let firm: TestFirm;

  beforeAll(async () => {
    server = await startTestServer("sqlite", { LOG_LEVEL: "trace" });
    await addAccount(server);
    firm = await createFirm(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Sends raw bytes and reads the whole answer (the server closes the connection). */
  function raw(bytes: string): Promise<string> {
    const url = new URL(server.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      let answer = "";
      socket.on("data", (d) => {
        answer += d.toString("utf8");
      });
      socket.on("close", () => resolve(answer));
      socket.on("error", reject);
      socket.write(bytes);
    });
  }

  function signedWithdrawal(extraHeaders: string) {
    const body = bodyBytes(
      withdrawalBody({ iban: "TR330006100519786457841326", national_id: "10987654321" }),
    ).toString("utf8");
    const timestamp = String(Math.floor(server.clock.now() / 1000));
    const nonce = newNonce();
    const path = "/paymentapi/v1/withdrawals";
    const signature = signRequest(firm.secret, {
      method: "POST",
      path,
      body: Buffer.from(body),
      timestamp,
      nonce,
    });
    const packet =
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
      `X-API-Key: ${firm.apiKey}\r\nX-Signature: ${signature}\r\nX-Timestamp: ${timestamp}\r\n` +
      `X-Nonce: ${nonce}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders}\r\n${body}`;
    return { packet, signature, nonce };
  }

  function expectNothingSecretLogged(secrets: string[]) {
    const log = server.logs.join("\n");
    expect(log).toContain("request refused by the HTTP parser");
    for (const s of secrets) expect(log, s).not.toContain(s);
    // Nor the raw bytes in any encoding pino could write them in.
    expect(log).not.toContain("rawPacket");
  }

  it("conflicting framing headers: 400 in the envelope; the signed request's secrets stay out of the log", async () => {
    const { packet, signature, nonce } = signedWithdrawal("Transfer-Encoding: chunked\r\n");
    const answer = await raw(packet);
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer.slice(answer.indexOf("\r\n\r\n") + 4)).toBe('{"success":false,"message":"Bad request"}');
    expectNothingSecretLogged([signature, nonce, firm.apiKey, "TR330006100519786457841326", "10987654321"]);
  });

  it("headers over the size limit: 431 in the envelope; the cookie they carried stays out of the log", async () => {
    const cookie = `payintake_ops=${"s".repeat(40)}${"x".repeat(20_000)}`;
    const answer = await raw(`GET /ops/api/me HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(answer).toContain('{"success":false,"message":"Request headers too large"}');
    expectNothingSecretLogged(["s".repeat(40)]);
  });

  it("headers sent slowly are cut at their 10 s limit, not at Node's 30 s check", async () => {
    const url = new URL(server.url);
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      let text = "";
      socket.on("data", (d) => {
        text += d.toString("utf8");
      });
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
      socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
      const drip = setInterval(() => socket.writable && socket.write("X-Slow: 1\r\n"), 1_000);
      socket.on("close", () => clearInterval(drip));
    });
    const took = Date.now() - started;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(took).toBeGreaterThanOrEqual(9_000);
    // Before: about 29 s.
    expect(took).toBeLessThan(13_000);
  }, 40_000);
});
