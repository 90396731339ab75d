import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, storeEnv } from "../support/harness.js";
import { depositBody } from "../support/merchant.js";
import { killAll, operator, type Server, sendSigned, startServe } from "../support/spawn.js";
import { camtFile } from "../support/statement-files.js";

/** `payintake statement import|list|show` against a running server (issue 34). */
describe.each(STORES)("payintake statement commands on %s", (kind) => {
  let store: Awaited<ReturnType<typeof storeEnv>>;
  let server: Server;
  let cli: ReturnType<typeof operator>;
  let dir: string;

  beforeAll(async () => {
    store = await storeEnv(kind);
    server = await startServe({ ...store.env, PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true" });
    cli = operator(server.url, store.env);
    dir = mkdtempSync(join(tmpdir(), "payintake-statements-"));
  });
  afterAll(async () => {
    await killAll();
    await store?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("imports a camt.053, printing the counts; again, every line a duplicate; another account's is refused", async () => {
    const iban = "TR330006100519786457841326";
    const account = await cli.addAccount({ bank: "Ziraat", holder: "Ödeme A.Ş.", iban });
    const firm = await cli.ok(
      "firm",
      "create",
      "--name",
      "Statement Firm",
      "--webhook-url",
      "http://127.0.0.1:9/cb",
    );
    const creds = { apiKey: firm.api_key, secret: firm.secret_key };
    const body = depositBody({ first_name: "Gülşen", last_name: "Çelik", amount: "812.40" });
    expect((await sendSigned(server.url, creds, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await sendSigned(server.url, creds, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    const { id, created_at } = (q.json as { data: { id: number; created_at: string } }).data;

    const file = join(dir, "statement.xml");
    writeFileSync(
      file,
      camtFile({
        iban,
        entries: [
          { amount: "812.40", name: "GULSEN CELIK", ref: "E1", at: Date.parse(created_at) + 30_000 },
          {
            amount: "3.50",
            direction: "debit",
            description: "MASRAF",
            ref: "E2",
            at: Date.parse(created_at),
          },
        ],
      }),
    );
    const imported = await cli.run("statement", "import", "--account", String(account.id), file);
    expect(imported.code).toBe(0);
    expect(imported.stdout.trim()).toBe(
      '{"lines":2,"credits":1,"approved":1,"suggested":0,"unmatched":0,"duplicates":0,"returns":0,"debits":1,"payouts_paid":0,"payouts_suggested":0}',
    );
    expect(await cli.ok("statement", "import", "--account", String(account.id), file)).toEqual({
      lines: 2,
      credits: 0,
      approved: 0,
      suggested: 0,
      unmatched: 0,
      duplicates: 2,
      returns: 0,
      debits: 0,
      payouts_paid: 0,
      payouts_suggested: 0,
    });
    expect((await cli.ok("tx", "show", String(id))).status).toBe("approved");

    const { lines } = await cli.ok(
      "statement",
      "list",
      "--account",
      String(account.id),
      "--state",
      "matched",
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ transaction_id: id, amount: "812.40", sender_name: "GULSEN CELIK" });
    expect((await cli.ok("statement", "show", String(lines[0].id))).state).toBe("approved");

    const other = join(dir, "other.xml");
    writeFileSync(other, camtFile({ iban: "TR120001000000000000000001", entries: [] }));
    const refused = await cli.run("statement", "import", "--account", String(account.id), other);
    expect(refused.code).toBe(1);
    expect(refused.json.message).toMatch(/^statement refused: it is for the account TR12/);
  });

  it("types a line, approves a deposit with it, marks another not ours; makes a feed secret and lists the feeds", async () => {
    const iban = "TR690001000000000000000000";
    const account = await cli.addAccount({ bank: "Akbank", holder: "Ödeme A.Ş.", iban });
    // Every deposit here shown this account: the others are switched off.
    for (const a of (await cli.ok("account", "list")).accounts)
      if (a.id !== account.id) await cli.ok("account", "update", String(a.id), "--active", "false");
    const firm = await cli.ok(
      "firm",
      "create",
      "--name",
      "Typed Lines",
      "--webhook-url",
      "http://127.0.0.1:9/cb",
    );
    const creds = { apiKey: firm.api_key, secret: firm.secret_key };
    const ids: number[] = [];
    for (const name of ["Ada", "Ece"]) {
      const body = depositBody({ first_name: name, last_name: "Su", amount: "40.00", bank_code: "AKBANK" });
      expect((await sendSigned(server.url, creds, { path: "/paymentapi/v1/deposits", body })).status).toBe(
        200,
      );
      const q = await sendSigned(server.url, creds, {
        path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
      });
      ids.push((q.json as { data: { id: number } }).data.id);
    }
    const typed = await cli.ok(
      ...["statement", "add", "--account", String(account.id), "--booked-at", new Date().toISOString()],
      ...["--amount", "40.00", "--sender-name", "BIRI", "--bank-ref", "T-1"],
    );
    expect(typed.results[0].state).toBe("suggested");
    const lineId = String(typed.results[0].id);
    const approved = await cli.ok("statement", "approve", lineId, "--transaction", String(ids[1]));
    expect(approved).toMatchObject({ transaction_id: ids[1] });
    const again = await cli.run("statement", "approve", lineId, "--transaction", String(ids[0]));
    expect(again.code).toBe(1);
    const stray = await cli.ok(
      ...["statement", "add", "--account", String(account.id), "--booked-at", new Date().toISOString()],
      ...["--amount", "9.99", "--bank-ref", "T-2"],
    );
    expect(
      await cli.ok("statement", "not-ours", String(stray.results[0].id), "--note", "iade"),
    ).toMatchObject({
      state: "not_ours",
    });

    const feed = await cli.ok("feed", "secret", "--account", String(account.id), "--silence-minutes", "5");
    expect(feed).toMatchObject({ account_id: account.id, silence_minutes: 5 });
    expect(feed.secret).toMatch(/^fs_/);
    const { feeds } = await cli.ok("feed", "list");
    expect(feeds).toEqual([expect.objectContaining({ account_id: account.id, last_at: null, silent: true })]);
    // Fourteen CLI processes, each a Node.js start.
  }, 120_000);
});
