import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send } from "../support/merchant.js";
import { type Receiver, startReceiver } from "../support/receiver.js";

/** The verification snippet in docs/callbacks.md, run as written against a real callback. */
function snippet(): string {
  const doc = readFileSync(new URL("../../docs/callbacks.md", import.meta.url), "utf8");
  const m = /```js\n(\/\/ verify-callback\.mjs\n[\s\S]*?)```/.exec(doc);
  if (!m?.[1]) throw new Error("verification snippet not found in docs/callbacks.md");
  return m[1];
}

describe("docs/callbacks.md verification snippet", () => {
  let server: TestServer;
  let receiver: Receiver;
  let verifyCallback: (secret: string, headers: unknown, body: string, now?: number) => any;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "payintake-doc-"));
    const file = join(dir, "verify-callback.mjs");
    writeFileSync(file, snippet());
    ({ verifyCallback } = await import(pathToFileURL(file).href));
    server = await startTestServer("sqlite", { PAYINTAKE_CALLBACK_POLL_MS: "25", LOG_LEVEL: "warn" });
    await addAccount(server);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  it("accepts a real callback and refuses any change to it", async () => {
    const firm = await createFirm(server, { webhook_url: receiver.url });
    const body = depositBody();
    await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    await server.admin("POST", `/admin/v1/transactions/${q.json.data.id}/approve`, { actor: "operator:t" });
    const [r] = await receiver.waitFor(1);
    if (!r) throw new Error("no callback");
    const now = Number(r.headers["x-timestamp"]);

    expect(verifyCallback(firm.secret, r.headers, r.body, now)).toMatchObject({
      event: "deposit.approved",
      reference: body.reference,
      amount: "150.00", // as text, as the guide's snippet returns it
    });
    expect(verifyCallback("sk_wrong", r.headers, r.body, now)).toBeNull();
    expect(verifyCallback(firm.secret, r.headers, r.body.replace("150.00", "150.01"), now)).toBeNull();
    expect(
      verifyCallback(firm.secret, { ...r.headers, "x-timestamp": String(now - 1) }, r.body, now),
    ).toBeNull();
    expect(verifyCallback(firm.secret, r.headers, r.body, now + 301)).toBeNull();
    expect(verifyCallback(firm.secret, { ...r.headers, "x-signature": undefined }, r.body, now)).toBeNull();
    // A forged header of 64 characters that are not ASCII (more bytes than characters) is refused,
    // not thrown: the receiver keeps running.
    const forged = { ...r.headers, "x-signature": "é".repeat(64) };
    expect(verifyCallback(firm.secret, forged, r.body, now)).toBeNull();
    const badHashcode = r.body.replace(/"hashcode":"[0-9a-f]+"/, `"hashcode":"${"ş".repeat(64)}"`);
    expect(() => verifyCallback(firm.secret, r.headers, badHashcode, now)).not.toThrow();
  });
});
