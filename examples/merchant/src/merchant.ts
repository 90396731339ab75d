import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type PayintakeClient, verifyCallback } from "@payintake/client";

/**
 * A merchant's backend in one file: its checkout asks payintake for a deposit (direct: the account
 * to show; hosted: the page to send the payer to), and its callback endpoint verifies each callback
 * and credits the player's balance exactly once, however often the callback arrives.
 *
 * Balances and credited transactions live in memory here; a real shop keeps them in its database,
 * with a unique key on the transaction id so that crediting twice is impossible there too.
 */
export interface Merchant {
  url: string;
  /** Balance per user, in kuruş: money is never a float. */
  balances: Map<string, number>;
  /** Every callback event seen, with what the merchant did with it. */
  log: string[];
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function reply(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
}

let orders = 0;

export async function startMerchant(opts: {
  client: PayintakeClient;
  secretKey: string;
  port?: number;
}): Promise<Merchant> {
  const balances = new Map<string, number>();
  const credited = new Set<number>();
  const log: string[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await readBody(req);
    if (req.method === "POST" && req.url === "/checkout") {
      // The shop's own order id is the reference. This demo makes a new order per checkout; a real
      // shop stores the order first and passes the same id on every retry of its checkout.
      const { user_id, amount, hosted } = JSON.parse(raw.toString("utf8")) as {
        user_id: string;
        amount?: string;
        hosted?: boolean;
      };
      const reference = `ORDER-${Date.now()}-${++orders}`;
      const payer = {
        reference,
        bank_code: "AKBANK",
        first_name: "Ayşe",
        last_name: "Yılmaz",
        username: `${user_id}@shop.example`,
        user_id,
      };
      if (hosted) {
        const page = await opts.client.createHostedDeposit({
          ...payer,
          return_url: "https://shop.example/wallet",
        });
        return page.ok
          ? reply(res, 200, { reference, payment_url: page.value.payment_url })
          : reply(res, 502, { reference, error: page.error.message });
      }
      const deposit = await opts.client.createDeposit({ ...payer, amount: amount ?? "0" });
      return deposit.ok
        ? reply(res, 200, { reference, pay_to: deposit.value })
        : reply(res, 422, { reference, error: deposit.error.message, code: deposit.error.code });
    }
    if (req.method === "POST" && req.url === "/callbacks") {
      const check = verifyCallback({ secret: opts.secretKey, rawBody: raw, headers: req.headers });
      if (!check.ok) {
        log.push(`refused a callback (${check.reason})`);
        return reply(res, 401, { error: check.reason });
      }
      const e = check.event;
      if (e.event === "deposit.approved") {
        // Idempotent: the same transaction is credited once, whatever the number of deliveries.
        if (credited.has(e.id)) {
          log.push(`deposit #${e.id} approved again: already credited, nothing to do`);
        } else {
          credited.add(e.id);
          balances.set(e.user_id, (balances.get(e.user_id) ?? 0) + e.amountMinor);
          log.push(`deposit #${e.id} approved: credited ${e.amount} TL to ${e.user_id}`);
        }
      } else {
        log.push(`${e.event} #${e.id} (${e.reference}): nothing to credit`);
      }
      // 2xx within 10 s tells payintake the callback arrived.
      return reply(res, 200, { received: true });
    }
    if (req.method === "GET" && req.url?.startsWith("/balance/")) {
      const user = decodeURIComponent(req.url.slice("/balance/".length));
      return reply(res, 200, { user_id: user, balance_minor: balances.get(user) ?? 0 });
    }
    reply(res, 404, { error: "not found" });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => reply(res, 500, { error: String(err) }));
  });
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    balances,
    log,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
