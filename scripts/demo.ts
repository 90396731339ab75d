/**
 * `npm run demo`: payintake on a temporary embedded store, a sandbox firm, the example merchant
 * (examples/merchant) on @payintake/client, and a direct and a hosted deposit followed through to
 * the merchant's credited balance, step by step. Exits 0 when every step did what it should.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PayintakeClient } from "@payintake/client";
import { startMerchant } from "../examples/merchant/src/merchant.js";
import { parseConfig } from "../src/config/config.js";
import { startServer } from "../src/main/server.js";

let step = 0;
const tl = (minor: number | undefined) =>
  `${Math.trunc((minor ?? 0) / 100)}.${String((minor ?? 0) % 100).padStart(2, "0")} TL`;
const say = (text: string) => console.log(`${String(++step).padStart(2, " ")}. ${text}`);
function check(ok: unknown, what: string): asserts ok {
  if (!ok) throw new Error(`demo failed: ${what}`);
}
async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 10_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`demo failed: waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
const post = async (url: string, body: unknown) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
};

const dir = mkdtempSync(join(tmpdir(), "payintake-demo-"));
const port = await freePort();
const adminToken = randomBytes(24).toString("hex");
const base = `http://127.0.0.1:${port}`;
const server = await startServer(
  parseConfig({
    PORT: String(port),
    PAYINTAKE_DATA_DIR: dir,
    PAYINTAKE_ADMIN_TOKEN: adminToken,
    PAYMENT_PAGE_URL: base,
    // The example merchant listens on 127.0.0.1: allowed for this local demo only.
    PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
    PAYINTAKE_CALLBACK_POLL_MS: "100",
    LOG_LEVEL: "silent",
  }),
);
let merchant: Awaited<ReturnType<typeof startMerchant>> | undefined;
try {
  say(`payintake is running at ${server.url} on a temporary embedded store (${dir})`);
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as Record<string, any>;
  };

  // The merchant must exist before the firm (the firm's webhook is the merchant's /callbacks).
  const merchantPort = await freePort();
  const firm = await admin("POST", "/admin/v1/firms", {
    name: "Demo shop (sandbox)",
    webhook_url: `http://127.0.0.1:${merchantPort}/callbacks`,
    sandbox: true,
  });
  check(firm.sandbox === true && typeof firm.secret_key === "string", "a sandbox firm was created");
  say(`a sandbox firm was created: #${firm.id}, API key ${firm.api_key} (its secret is shown only once)`);

  const client = new PayintakeClient({ baseUrl: base, apiKey: firm.api_key, secretKey: firm.secret_key });
  merchant = await startMerchant({ client, secretKey: firm.secret_key, port: merchantPort });
  say(`the example merchant is running at ${merchant.url} with @payintake/client`);

  // Direct mode.
  const direct = await post(`${merchant.url}/checkout`, { user_id: "player-1", amount: "150.00" });
  check(
    direct.status === 200 && direct.json.pay_to?.assigned_iban,
    `direct checkout: ${JSON.stringify(direct.json)}`,
  );
  const pay = direct.json.pay_to;
  say(
    `direct deposit ${direct.json.reference}: the payer is told to send 150.00 TL to ${pay.assigned_bank_name}, ${pay.assigned_holder_name}, ${pay.assigned_iban}`,
  );

  const found = await client.getTransactionByReference(direct.json.reference);
  check(found.ok && found.value.status === "pending", "the deposit is pending");
  say(`payintake has transaction #${found.value.id}, status ${found.value.status}`);

  const approved = await client.sandbox.approve(found.value.id);
  check(approved.ok, "the sandbox helper approved it");
  say(`the transfer "arrived": the sandbox helper approved #${found.value.id} as an operator would`);

  const credited = await until(
    "the merchant to credit player-1",
    () => (merchant?.balances.get("player-1") ?? 0) === 15000,
  );
  check(credited, "credited");
  say(
    `the signed callback arrived and was verified; player-1's balance is ${tl(merchant.balances.get("player-1"))}`,
  );

  const resent = await client.sandbox.resendCallback(found.value.id);
  check(resent.ok, "the callback was sent again");
  await until("the repeated callback", () => merchant?.log.some((l) => l.includes("already credited")));
  check(merchant.balances.get("player-1") === 15000, "no double credit");
  say(
    `the same callback was delivered again: the merchant saw it was already credited; balance still ${tl(merchant.balances.get("player-1"))}`,
  );

  // A rejection the amount asks for, to see a failure as the merchant does.
  const declined = await post(`${merchant.url}/checkout`, { user_id: "player-2", amount: "100.91" });
  check(declined.status === 422 && declined.json.code === "channel_declined", "the .91 amount is declined");
  say(
    `a 100.91 TL deposit (a sandbox amount): payintake answered "${declined.json.error}" (${declined.json.code}); nothing was created`,
  );

  // Hosted mode.
  const hosted = await post(`${merchant.url}/checkout`, { user_id: "player-3", hosted: true });
  check(hosted.status === 200 && String(hosted.json.payment_url).startsWith(`${base}/t/`), "hosted checkout");
  say(
    `hosted deposit ${hosted.json.reference}: the payer is sent to ${hosted.json.payment_url.replace(/\/t\/.+/, "/t/…")}`,
  );
  const token = String(hosted.json.payment_url).split("/t/")[1];
  const submitted = await post(`${base}/api/pay/${token}/deposit`, { amount: "250.00" });
  check(submitted.status === 200, `the payer's amount was accepted: ${JSON.stringify(submitted.json)}`);
  check(submitted.json.iban === pay.assigned_iban, "the page shows the sandbox account");
  say(
    `on the page the payer entered 250.00 TL and was shown ${submitted.json.bank_name}, ${submitted.json.iban}`,
  );
  const hostedTx = await until("the hosted transaction", async () => {
    const r = await client.getTransactionByReference(hosted.json.reference);
    return r.ok ? r.value : undefined;
  });
  const ok = await client.sandbox.approve(hostedTx.id);
  check(ok.ok, "approved");
  await until("the merchant to credit player-3", () => merchant?.balances.get("player-3") === 25000);
  say(`approved; the callback credited player-3 with ${tl(merchant.balances.get("player-3"))}`);

  say("done: every step behaved as the integration guide says");
} finally {
  await merchant?.close();
  await server.close({ drainMs: 0 });
  rmSync(dir, { recursive: true, force: true });
}
