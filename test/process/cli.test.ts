import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, storeEnv } from "../support/harness.js";
import { depositBody } from "../support/merchant.js";
import {
  Child,
  type Credentials,
  childEnv,
  killAll,
  operator,
  PROBE_PATH,
  runCli,
  type Server,
  sendSigned,
  startServe,
} from "../support/spawn.js";

/**
 * The operator CLI (`node dist/main/cli.js ...`) against a real `payintake serve` child process:
 * every command prints exactly one JSON object and exits 0; bad usage and unknown ids do not.
 */
describe.each(STORES)(
  "payintake CLI against a running server on %s",
  (kind) => {
    let store: Awaited<ReturnType<typeof storeEnv>>;
    let server: Server;
    let cli: ReturnType<typeof operator>;
    const extra = { PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true" };

    beforeAll(async () => {
      store = await storeEnv(kind);
      server = await startServe({ ...store.env, ...extra });
      cli = operator(server.url, store.env);
    });
    afterAll(async () => {
      await killAll();
      await store?.cleanup();
    });

    async function newFirm(...flags: string[]): Promise<{ id: number; creds: Credentials; json: any }> {
      const json = await cli.ok(
        "firm",
        "create",
        "--name",
        `Firm ${Math.random().toString(36).slice(2, 8)}`,
        "--webhook-url",
        "http://127.0.0.1:9/callbacks",
        "--rate-limit",
        "100000",
        ...flags,
      );
      return { id: json.id, creds: { apiKey: json.api_key, secret: json.secret_key }, json };
    }

    it("serve printed a loopback URL with the real port and answers on it", async () => {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(Number(new URL(server.url).port)).toBeGreaterThan(0);
      const lines = server.child.stdout.split("\n").filter((l) => l.startsWith("payintake listening on"));
      expect(lines).toEqual([`payintake listening on ${server.url}`]);
      // The store was migrated on start: the operator API can read its tables.
      expect(await cli.ok("provider", "list")).toEqual({ providers: expect.any(Array) });
    });

    it("provider create and provider list", async () => {
      const created = await cli.ok(
        "provider",
        "create",
        "--name",
        "Platform One",
        "--kind",
        "platform",
        "--callback-url",
        "http://127.0.0.1:9/central",
        "--auto-cancel-minutes",
        "30",
      );
      expect(created).toMatchObject({
        id: expect.any(Number),
        name: "Platform One",
        kind: "platform",
        callback_url: "http://127.0.0.1:9/central",
        auto_cancel_minutes: 30,
      });
      const list = await cli.ok("provider", "list");
      expect(Object.keys(list)).toEqual(["providers"]);
      expect(list.providers).toContainEqual(
        expect.objectContaining({ id: created.id, name: "Platform One" }),
      );
    });

    it("firm create shows id, api_key and secret_key; show and list never print the secret", async () => {
      const provider = await cli.ok("provider", "create", "--name", "P2", "--kind", "platform");
      const created = await cli.ok(
        "firm",
        "create",
        "--name",
        "Acme Bet",
        "--webhook-url",
        "http://127.0.0.1:9/hook",
        "--legacy-http",
        "--callback-middle-name",
        "--deposit-min",
        "10",
        "--deposit-max",
        "5000",
        "--provider",
        String(provider.id),
      );
      expect(created).toMatchObject({
        id: expect.any(Number),
        name: "Acme Bet",
        provider_id: provider.id,
        api_key: expect.any(String),
        secret_key: expect.any(String),
        webhook_url: "http://127.0.0.1:9/hook",
        legacy_http: true,
        callback_middle_name: true,
        deposit_min: "10.00",
        deposit_max: "5000.00",
        deposits: "open",
        withdrawals: "open",
        active: true,
      });
      expect(created.api_key.length).toBeGreaterThan(10);
      expect(created.secret_key.length).toBeGreaterThan(20);

      const shown = await cli.run("firm", "show", String(created.id));
      expect(shown.code).toBe(0);
      expect(shown.json).toMatchObject({ id: created.id, api_key: created.api_key });
      expect(shown.stdout).not.toContain(created.secret_key);
      expect(shown.stdout).not.toContain("secret");

      const listed = await cli.run("firm", "list");
      expect(listed.code).toBe(0);
      expect(Object.keys(listed.json)).toEqual(["firms"]);
      expect(listed.json.firms).toContainEqual(expect.objectContaining({ id: created.id }));
      expect(listed.stdout).not.toContain(created.secret_key);
      expect(listed.stdout).not.toContain("secret");
    });

    it("a live firm's plain-http webhook is warned of on stderr, stdout keeping its one object; not a test firm's", async () => {
      const name = () => `Firm ${Math.random().toString(36).slice(2, 8)}`;
      const plain = await cli.run(
        "firm",
        "create",
        "--name",
        name(),
        "--webhook-url",
        "http://127.0.0.1:9/h",
      );
      expect(plain.code).toBe(0);
      expect(plain.json.warnings).toEqual([expect.stringContaining("webhook_url is plain http")]);
      expect(plain.stderr).toBe(`warning: ${plain.json.warnings[0]}\n`);
      const secure = await cli.run(
        "firm",
        "create",
        "--name",
        name(),
        "--webhook-url",
        "https://127.0.0.1:9/h",
      );
      expect([secure.code, secure.json.warnings, secure.stderr]).toEqual([0, [], ""]);
      const test = await cli.run(
        "firm",
        "create",
        "--name",
        name(),
        "--webhook-url",
        "http://127.0.0.1:9/h",
        "--sandbox",
      );
      expect([test.code, test.json.warnings, test.stderr]).toEqual([0, [], ""]);
      // Set later by an update, it is said then too.
      const changed = await cli.run(
        "firm",
        "update",
        String(secure.json.id),
        "--webhook-url",
        "http://127.0.0.1:9/h",
      );
      expect(changed.code).toBe(0);
      expect(changed.stderr).toContain("warning: webhook_url is plain http");
    });

    it("firm update changes switches, flags and limits, and the running server applies them", async () => {
      const firm = await newFirm();
      const updated = await cli.ok(
        "firm",
        "update",
        String(firm.id),
        "--deposits",
        "closed",
        "--withdrawals",
        "open",
        "--active",
        "false",
        "--legacy-http",
        "true",
        "--deposit-min",
        "20",
      );
      expect(updated).toMatchObject({
        id: firm.id,
        deposits: "closed",
        withdrawals: "open",
        active: false,
        legacy_http: true,
        deposit_min: "20.00",
      });
      expect(await cli.ok("firm", "show", String(firm.id))).toMatchObject(updated);

      const inactive = await sendSigned(server.url, firm.creds, { path: PROBE_PATH });
      expect({ status: inactive.status, json: inactive.json }).toEqual({
        status: 403,
        json: { success: false, message: "API key is inactive" },
      });

      await cli.ok("firm", "update", String(firm.id), "--active", "true");
      const closed = await sendSigned(server.url, firm.creds, {
        path: "/paymentapi/v1/deposits",
        body: depositBody(),
      });
      // Legacy HTTP is on now: business rejections answer 200 with the rejection body.
      expect({ status: closed.status, json: closed.json }).toEqual({
        status: 200,
        json: { success: false, message: "Yatırım şu anda kapalı" },
      });
    });

    it("firm create and update set the bounds of pending deposits; none takes a bound off", async () => {
      expect((await newFirm()).json).toMatchObject({
        max_pending_count: 1000,
        max_pending_amount: "2000000.00",
      });
      const firm = await newFirm(
        "--max-pending-count",
        "50",
        "--max-pending-amount",
        "5000.00",
        "--max-cap-share",
        "25",
      );
      expect(firm.json).toMatchObject({
        max_pending_count: 50,
        max_pending_amount: "5000.00",
        max_cap_share: 25,
      });
      const changed = await cli.ok("firm", "update", String(firm.id), "--max-pending-count", "none");
      expect(changed).toMatchObject({ max_pending_count: null, max_pending_amount: "5000.00" });
      const amount = await cli.ok(
        "firm",
        "update",
        String(firm.id),
        "--max-pending-amount",
        "none",
        "--max-cap-share",
        "none",
      );
      expect(amount).toMatchObject({
        max_pending_count: null,
        max_pending_amount: null,
        max_cap_share: null,
      });
      expect(await cli.ok("firm", "show", String(firm.id))).toMatchObject(amount);
      const bad = await cli.run("firm", "update", String(firm.id), "--max-pending-count", "many");
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('--max-pending-count must be a whole number, 0 or more (got "many")');
      const zero = await cli.run("firm", "update", String(firm.id), "--max-pending-count", "0");
      expect(zero.code).not.toBe(0);
      expect(zero.stdout + zero.stderr).toContain("max_pending_count");
    });

    it("firm create and update set the payment page's display name and usual amount; none takes them off", async () => {
      expect((await newFirm()).json).toMatchObject({ display_name: null, usual_amount_max: null });
      const firm = await newFirm("--display-name", "Kuzey Market", "--usual-amount-max", "7500");
      expect(firm.json).toMatchObject({ display_name: "Kuzey Market", usual_amount_max: "7500.00" });
      const changed = await cli.ok(
        "firm",
        "update",
        String(firm.id),
        "--display-name",
        "Kuzey Market Online",
        "--usual-amount-max",
        "none",
      );
      expect(changed).toMatchObject({ display_name: "Kuzey Market Online", usual_amount_max: null });
      const cleared = await cli.ok("firm", "update", String(firm.id), "--display-name", "none");
      expect(cleared).toMatchObject({ display_name: null });
      expect(await cli.ok("firm", "show", String(firm.id))).toMatchObject(cleared);
      // The rules of every name an operator types: a right-to-left override is refused.
      const bidi = await cli.run("firm", "update", String(firm.id), "--display-name", "Shop\u202Eexe");
      expect(bidi.code).not.toBe(0);
      expect(bidi.stdout + bidi.stderr).toContain("must not contain control characters");
    });

    it("firm rotate-secret prints a new secret; the old one is refused at once, the new one works", async () => {
      const firm = await newFirm();
      const before = await sendSigned(server.url, firm.creds, { path: PROBE_PATH });
      expect({ status: before.status, json: before.json }).toEqual({
        status: 404,
        json: { success: false, message: "transaction not found" },
      });

      const rotated = await cli.ok("firm", "rotate-secret", String(firm.id));
      expect(rotated).toMatchObject({
        id: firm.id,
        api_key: firm.creds.apiKey,
        secret_key: expect.any(String),
      });
      expect(rotated.secret_key).not.toBe(firm.creds.secret);

      const old = await sendSigned(server.url, firm.creds, { path: PROBE_PATH });
      expect({ status: old.status, json: old.json }).toEqual({
        status: 401,
        json: { success: false, message: "Invalid signature" },
      });

      const fresh = await sendSigned(
        server.url,
        { ...firm.creds, secret: rotated.secret_key },
        { path: PROBE_PATH },
      );
      expect({ status: fresh.status, json: fresh.json }).toEqual({
        status: 404,
        json: { success: false, message: "transaction not found" },
      });
    });

    it("account add, account update and account list", async () => {
      const added = await cli.ok(
        "account",
        "add",
        "--bank-name",
        "Test Bank",
        "--holder-name",
        "Holder One",
        "--iban",
        "TR200000000000000000000001",
        "--min",
        "10",
        "--max",
        "20",
      );
      expect(added).toMatchObject({
        id: expect.any(Number),
        bank_name: "Test Bank",
        holder_name: "Holder One",
        iban: "TR200000000000000000000001",
        min: "10.00",
        max: "20.00",
        active: true,
      });
      const updated = await cli.ok(
        "account",
        "update",
        String(added.id),
        "--active",
        "false",
        "--min",
        "5",
        "--max",
        "15.50",
      );
      expect(updated).toMatchObject({ id: added.id, active: false, min: "5.00", max: "15.50" });
      // `none` takes a limit off (it could be set, never removed, from the CLI).
      const unlimited = await cli.ok("account", "update", String(added.id), "--min", "none", "--max", "none");
      expect(unlimited).toMatchObject({ id: added.id, min: null, max: null });
      const list = await cli.ok("account", "list");
      expect(list.accounts).toContainEqual(expect.objectContaining({ id: added.id, active: false }));
    });

    it("user ban and user unban, and the server honours them", async () => {
      await cli.ok(
        "account",
        "add",
        "--bank-name",
        "Ban Bank",
        "--holder-name",
        "Holder Ban",
        "--iban",
        "TR900000000000000000000002",
      );
      const firm = await newFirm();
      const banned = await cli.ok("user", "ban", "--firm", String(firm.id), "--user-id", "u-banned");
      expect(banned).toEqual({ firm_id: firm.id, user_id: "u-banned", banned: true });

      const refused = await sendSigned(server.url, firm.creds, {
        path: "/paymentapi/v1/deposits",
        body: depositBody({ user_id: "u-banned" }),
      });
      expect({ status: refused.status, json: refused.json }).toEqual({
        status: 403,
        json: { success: false, message: "Kullanıcı yasaklı" },
      });

      const unbanned = await cli.ok("user", "unban", "--firm", String(firm.id), "--user-id", "u-banned");
      expect(unbanned).toEqual({ firm_id: firm.id, user_id: "u-banned", banned: false });
      const accepted = await sendSigned(server.url, firm.creds, {
        path: "/paymentapi/v1/deposits",
        body: depositBody({ user_id: "u-banned" }),
      });
      expect(accepted.status, accepted.text).toBe(200);
      expect(accepted.json.success).toBe(true);
    });

    it("tx list (all, by firm, by status) and tx show after a signed deposit", async () => {
      await cli.ok(
        "account",
        "add",
        "--bank-name",
        "Tx Bank",
        "--holder-name",
        "Holder Tx",
        "--iban",
        "TR630000000000000000000003",
      );
      const firm = await newFirm();
      const body = depositBody({ amount: "150.00" });
      const dep = await sendSigned(server.url, firm.creds, { path: "/paymentapi/v1/deposits", body });
      expect(dep.status, dep.text).toBe(200);
      expect(dep.json).toMatchObject({ success: true, message: "Yatırım talebiniz alındı" });

      const all = await cli.ok("tx", "list");
      expect(Object.keys(all)).toEqual(["transactions"]);
      const mine = await cli.ok("tx", "list", "--firm", String(firm.id));
      expect(mine.transactions).toHaveLength(1);
      const tx = mine.transactions[0];
      expect(tx).toMatchObject({
        firm_id: firm.id,
        reference: body.reference,
        type: "deposit",
        status: "pending",
        user_id: body.user_id,
        national_id: "12***01",
        assigned_iban: dep.json.assigned_iban,
      });
      expect(all.transactions).toContainEqual(expect.objectContaining({ id: tx.id }));

      const pending = await cli.ok("tx", "list", "--firm", String(firm.id), "--status", "pending");
      expect(pending.transactions.map((t: any) => t.id)).toEqual([tx.id]);
      const approved = await cli.ok("tx", "list", "--firm", String(firm.id), "--status", "approved");
      expect(approved).toEqual({ transactions: [] });

      const shown = await cli.run("tx", "show", String(tx.id));
      expect(shown.code).toBe(0);
      expect(shown.json).toMatchObject({ id: tx.id, reference: body.reference, status: "pending" });
      // Only the masked national id leaves the store.
      expect(shown.stdout).not.toContain("12345678901");
    });

    it("tx approve with another amount, tx reject, a second decision refused; callback list, show, redeliver", async () => {
      const firm = await newFirm();
      const ids: number[] = [];
      for (let i = 0; i < 2; i++) {
        const body = depositBody({ amount: "150.00" });
        expect(
          (await sendSigned(server.url, firm.creds, { path: "/paymentapi/v1/deposits", body })).status,
        ).toBe(200);
        const q = await sendSigned(server.url, firm.creds, {
          path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
        });
        ids.push(q.json.data.id);
      }
      // A mistyped flag or an amount given without its flag approves nothing: a usage error, exit 2.
      for (const args of [["--ammount", "149.90"], ["149.90"]]) {
        const typo = await cli.run("tx", "approve", String(ids[0]), ...args);
        expect(typo.code, args.join(" ")).toBe(2);
        expect(typo.stderr).toMatch(/unknown option --ammount|unexpected argument "149\.90"/);
        expect(typo.stdout).toBe("");
      }
      expect((await cli.ok("tx", "show", String(ids[0]))).status).toBe("pending");

      const approved = await cli.ok(
        "tx",
        "approve",
        String(ids[0]),
        "--amount",
        "149.90",
        "--note",
        "short",
        "--operator",
        "ayse",
      );
      expect(approved.transaction).toMatchObject({
        status: "approved",
        amount: "149.90",
        original_amount: "150.00",
        decided_by: "admin-api:ayse",
        decision_note: "short",
      });
      const rejected = await cli.ok("tx", "reject", String(ids[1]));
      expect(rejected.transaction.status).toBe("rejected");
      expect(rejected.transaction.decided_by).toMatch(/^admin-api:.+/);
      const twice = await cli.run("tx", "reject", String(ids[0]));
      expect(twice.code).toBe(1);
      expect(twice.json.message).toBe(
        "transaction is not pending (status: approved); it was decided already",
      );

      const list = await cli.ok("callback", "list", "--firm", String(firm.id));
      expect(list.callbacks.map((c: any) => c.transaction_id).sort()).toEqual([...ids].sort());
      const shown = await cli.ok("callback", "show", String(list.callbacks[0].id));
      expect(shown).toMatchObject({ id: list.callbacks[0].id, event: expect.stringMatching(/^deposit\./) });
      const again = await cli.ok("callback", "redeliver", String(list.callbacks[0].id));
      expect(again).toMatchObject({ id: list.callbacks[0].id, status: "pending" });
      const since = await cli.ok("callback", "redeliver", "--failed-since", "2026-01-01T00:00:00Z");
      expect(since).toMatchObject({ redelivered: expect.any(Number) });
      const both = await cli.run("callback", "redeliver", "1", "--failed-since", "2026-01-01T00:00:00Z");
      expect(both.code).not.toBe(0);
      expect(both.stderr).toContain("either an id or --failed-since");
      const badSince = await cli.run("callback", "redeliver", "--failed-since", "yesterday");
      expect(badSince.code).toBe(1);
    });

    it("channel create (secret shown once), update, list, and account add --channel", async () => {
      const code = `CH${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
      const created = await cli.ok(
        "channel",
        "create",
        "--code",
        code,
        "--kind",
        "http",
        "--url",
        "http://127.0.0.1:9/asks",
        "--timeout-ms",
        "500",
      );
      expect(created).toMatchObject({ code, kind: "http", timeout_ms: 500, active: true });
      expect(created.secret).toMatch(/^sk_/);
      const updated = await cli.ok("channel", "update", code, "--timeout-ms", "700", "--active", "false");
      expect(updated).toMatchObject({ timeout_ms: 700, active: false });
      const list = await cli.run("channel", "list");
      expect(list.code).toBe(0);
      expect(list.json.channels.find((c: any) => c.code === code)).toMatchObject({ breaker: "closed" });
      expect(list.stdout).not.toContain(created.secret);
      const acc = await cli.ok(
        "account",
        "add",
        "--bank-name",
        "B",
        "--holder-name",
        "H",
        "--iban",
        "TR050000000000000000000077",
        "--channel",
        code,
        "--bank-code",
        "akbank",
      );
      expect(acc).toMatchObject({ channel_id: created.id, bank_code: "AKBANK" });
      const missing = await cli.run(
        "account",
        "add",
        "--bank-name",
        "B",
        "--holder-name",
        "H",
        "--iban",
        "TR330006100519786457841326",
        "--channel",
        "NOPE",
      );
      expect(missing.code).toBe(1);
      expect(missing.json).toEqual({
        success: false,
        code: "channel_not_found",
        message: "channel not found",
      });
      const noUrl = await cli.run("channel", "create", "--code", `${code}X`, "--kind", "http");
      expect(noUrl.code).toBe(1);
      await cli.ok("account", "update", String(acc.id), "--active", "false");
    });

    it("channel-sim answers the channel protocol as told, and prints each ask", async () => {
      const sim = new Child(["channel-sim", "--port", "0", "--behaviour", "decline"], childEnv({}));
      try {
        const m = await sim.waitForStdout(
          /channel simulator listening on (http:\/\/\S+) \(decline\)/,
          15_000,
        );
        const res = await fetch(m[1] as string, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ action: "ask", ask_id: "1:R-1", amount: "1.00" }),
        });
        expect(await res.json()).toEqual({ decision: "decline", reason: "payer refused" });
        await sim.waitForStdout(/"ask_id":"1:R-1"/, 5_000);
      } finally {
        sim.kill("SIGTERM");
        await sim.waitExit(10_000).catch(() => undefined);
      }
    });

    it("operator create prints a one-time password once", async () => {
      const email = `op-${Math.random().toString(36).slice(2, 8)}@ops.example`;
      const created = await cli.ok("operator", "create", "--email", email, "--role", "operator");
      expect(created).toMatchObject({
        email,
        role: "operator",
        password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
      });
      const badRole = await cli.run("operator", "create", "--email", `x${email}`, "--role", "boss");
      expect(badRole.code).toBe(1);
      // Break glass for a lost authenticator (docs/console.md): the operator's view comes back.
      expect(await cli.ok("operator", "reset-2fa", "--email", email)).toMatchObject({
        email,
        second_factor: false,
      });
      const unknown = await cli.run("operator", "reset-2fa", "--email", `nobody-${email}`);
      expect(unknown.code).toBe(1);
      expect(unknown.json).toEqual({
        success: false,
        code: "operator_not_found",
        message: "operator not found",
      });
    });

    it("unknown ids exit 1 and print the error object", async () => {
      const firm = await cli.run("firm", "show", "999999");
      expect(firm.code).toBe(1);
      expect(firm.json).toEqual({ success: false, code: "firm_not_found", message: "firm not found" });
      expect(firm.stdout.trim().split("\n")).toHaveLength(1);

      const update = await cli.run("firm", "update", "999999", "--active", "false");
      expect(update.code).toBe(1);
      expect(update.json).toEqual({ success: false, code: "firm_not_found", message: "firm not found" });

      const rotate = await cli.run("firm", "rotate-secret", "999999");
      expect(rotate.code).toBe(1);
      expect(rotate.json).toEqual({ success: false, code: "firm_not_found", message: "firm not found" });

      const tx = await cli.run("tx", "show", "999999");
      expect(tx.code).toBe(1);
      expect(tx.json).toEqual({
        success: false,
        code: "transaction_not_found",
        message: "transaction not found",
      });
    });

    it("bad usage exits non-zero with a message on stderr and nothing on stdout", async () => {
      const missingName = await cli.run("firm", "create", "--webhook-url", "http://127.0.0.1:9/x");
      expect(missingName.code).not.toBe(0);
      expect(missingName.stderr).toContain("--name");
      expect(missingName.stdout).toBe("");

      const missingProviderName = await cli.run("provider", "create", "--kind", "platform");
      expect(missingProviderName.code).not.toBe(0);
      expect(missingProviderName.stderr).toContain("--name");

      const unknown = await cli.run("frobnicate", "now");
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain("unknown command");
      expect(unknown.stdout).toBe("");

      const badFlag = await cli.run("firm", "update", "1", "--active", "maybe");
      expect(badFlag.code).not.toBe(0);
      expect(badFlag.stderr).toContain("--active");
      expect(badFlag.stdout).toBe("");

      const noId = await cli.run("firm", "show");
      expect(noId.code).not.toBe(0);
      expect(noId.stderr).toContain("id");

      // An id that is no id is named as such (it said "an id is required", the id in plain sight).
      for (const bad of ["abc", "1.5", "0"]) {
        const r = await cli.run("firm", "update", bad, "--active", "true");
        expect([bad, r.code, r.stderr.trim()]).toEqual([
          bad,
          2,
          `payintake: the id must be a whole number above 0 (got "${bad}")`,
        ]);
      }

      // A group alone lists its commands with their options; --help on a command shows its own.
      const group = await cli.run("firm");
      expect(group.code).toBe(2);
      expect(group.stderr).toContain('unknown command "firm"');
      expect(group.stderr).toContain("payintake firm update ID [--deposits open|closed]");
      expect(group.stderr).not.toContain("payintake account");
      const help = await cli.run("account", "update", "--help");
      expect([help.code, help.stdout]).toEqual([
        0,
        "  payintake account update ID [--active true|false] [--min AMOUNT|none] [--max AMOUNT|none] [--channel CODE|none] [--bank-code CODE|none] [--daily-cap AMOUNT|none]\n",
      ]);

      const typo = await cli.run("firm", "update", "1", "--deposit-mn", "10");
      expect(typo.code).toBe(2);
      expect(typo.stderr).toContain("unknown option --deposit-mn");
      expect(typo.stdout).toBe("");
    });

    it("a newcomer's slips: no command, a typo in a command or an option, a server not there; --env gives a firm as shell lines", async () => {
      const none = await cli.run();
      expect(none.code).toBe(2);
      expect(none.stderr).toContain("payintake serve");
      expect(none.stdout).toBe("");
      // One line with the likely meaning, not the whole usage under it.
      const frim = await cli.run("frim", "list");
      expect([frim.code, frim.stderr]).toEqual([
        2,
        'payintake: unknown command "frim list"; did you mean "firm list"? (payintake --help lists the commands)\n',
      ]);
      const option = await cli.run("firm", "create", "--name", "X", "--webhook", "https://shop.example/h");
      expect([option.code, option.stderr.trim()]).toEqual([
        2,
        "payintake: unknown option --webhook for this command; did you mean --webhook-url?",
      ]);
      // A statement file that is not there is said as such, not as a server out of reach.
      const missing = await cli.run("statement", "import", "--account", "1", "/no/such/statement.xml");
      expect([missing.code, missing.stderr.trim()]).toEqual([
        1,
        "payintake: cannot read /no/such/statement.xml: no such file",
      ]);
      const away = await operator("http://127.0.0.1:9", store.env).run("firm", "list");
      expect(away.code).toBe(1);
      expect(away.stderr).toContain("cannot reach the server at http://127.0.0.1:9");
      expect(away.stderr).toContain("PAYINTAKE_URL");

      // The lines a shell takes as they are, and with them a signed request succeeds.
      const env = await cli.run(
        "firm",
        "create",
        "--name",
        "Env Shop",
        "--webhook-url",
        "http://127.0.0.1:9/h",
        "--env",
      );
      expect(env.code).toBe(0);
      const lines = env.stdout.trim().split("\n");
      expect(lines.map((l) => l.split("=")[0])).toEqual([
        "export PAYINTAKE_URL",
        "export PAYINTAKE_API_KEY",
        "export PAYINTAKE_SECRET_KEY",
      ]);
      expect(env.stderr).toMatch(/^firm \d+ created; its secret key is shown only here$/m);
      const sh = spawnSync(
        "bash",
        [
          "-c",
          `${env.stdout}\nprintf '%s %s %s' "$PAYINTAKE_URL" "$PAYINTAKE_API_KEY" "$PAYINTAKE_SECRET_KEY"`,
        ],
        {
          encoding: "utf8",
        },
      );
      const [url, apiKey, secret] = sh.stdout.split(" ");
      expect(url).toBe(server.url);
      const { firms } = await cli.ok("firm", "list");
      expect(firms.find((f: { name: string }) => f.name === "Env Shop").api_key).toBe(apiKey);
      expect(secret).toMatch(/^sk_/);
    });

    it("a wrong admin token is refused with exit 1", async () => {
      const wrong = operator(server.url, { ...store.env, PAYINTAKE_ADMIN_TOKEN: "x".repeat(48) });
      const r = await wrong.run("firm", "list");
      expect(r.code).toBe(1);
      expect(r.json).toEqual({ success: false, code: "invalid_admin_token", message: "Invalid admin token" });
      expect(r.stderr).toBe("");
    });

    it("a wrong token read from a data directory's file is refused, and the CLI says which file it read", async () => {
      const dir = mkdtempSync(join(tmpdir(), "payintake-other-token-"));
      try {
        writeFileSync(join(dir, "admin.token"), "y".repeat(48));
        const other = operator(server.url, {
          ...store.env,
          PAYINTAKE_ADMIN_TOKEN: undefined,
          PAYINTAKE_DATA_DIR: dir,
        });
        const r = await other.run("firm", "list");
        expect(r.code).toBe(1);
        expect(r.json).toEqual({
          success: false,
          code: "invalid_admin_token",
          message: "Invalid admin token",
        });
        expect(r.stderr).toContain(`the admin token was read from ${join(dir, "admin.token")}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("an unreachable server exits non-zero with a message on stderr", async () => {
      const r = await runCli(["firm", "list"], {
        ...store.env,
        PAYINTAKE_URL: "http://127.0.0.1:9",
      });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain("cannot reach the server");
    });
    // Each test runs the CLI as a process a dozen times or more (1 to 2 s each when two test files
    // share the two cores): 30 s cut one off in a full run, not for a hang.
  },
  120_000,
);

/**
 * A command's own words (the command, its options, their values) are checked before the
 * configuration it needs to reach a server: a typo is named with no admin token set, and with a
 * setting that is wrong. No server runs here; the data directory is empty, so no token is found.
 * A test runs the CLI up to six times, about a second each when two test files share the cores.
 */
describe("payintake CLI: the words before the configuration", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "payintake-no-token-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const noToken = () => ({ PAYINTAKE_DATA_DIR: dir });
  const webhook = "https://shop.example/h";

  it("with no admin token: a mistyped option, a missing one and a malformed value are named, exit 2", async () => {
    const cases: [string[], string][] = [
      [
        ["firm", "create", "--name", "X", "--webhook", webhook],
        "payintake: unknown option --webhook for this command; did you mean --webhook-url?",
      ],
      [["firm", "create", "--webhook-url", webhook], "payintake: --name is required"],
      [
        ["firm", "create", "--name", "X", "--rate-limit", "many"],
        'payintake: --rate-limit must be a whole number, 0 or more (got "many")',
      ],
      [["firm", "update", "1"], "payintake: nothing to change: give at least one option (--help lists them)"],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, noToken());
      expect([args.join(" "), r.code, r.stderr.trim(), r.stdout]).toEqual([args.join(" "), 2, message, ""]);
    }
  });

  it("with no admin token, a right command still says the token is missing", async () => {
    const r = await runCli(["firm", "create", "--name", "X", "--webhook-url", webhook], noToken());
    expect([r.code, r.stderr.trim(), r.stdout]).toEqual([
      2,
      `payintake: no admin token: set PAYINTAKE_ADMIN_TOKEN as the server has it, or PAYINTAKE_DATA_DIR to the embedded server's data directory (looked for ${join(dir, "admin.token")})`,
      "",
    ]);
  });

  it("with a wrong setting, every kind of command names its own mistake first", async () => {
    const broken = { ...noToken(), PORT: "not-a-port" };
    const cases: [string[], string][] = [
      [
        ["tx", "approve", "7", "--ammount", "100"],
        "payintake: unknown option --ammount for this command; did you mean --amount?",
      ],
      [
        ["firm", "creat", "--name", "X"],
        'payintake: unknown command "firm creat"; did you mean "firm create"?',
      ],
      [["serve", "--role", "boss"], "payintake: --role must be api, worker or all"],
      [["channel-sim", "--port", "high"], "payintake: --port must be a port number"],
      [["master-key", "rotate", "--generate", "yes"], "payintake: --generate takes no value"],
      [["firm", "list"], "payintake: invalid configuration:\n  PORT must be a number from 0 to 65535"],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, broken);
      expect([args.join(" "), r.code, r.stderr.split("\n\n")[0]?.trim()]).toEqual([
        args.join(" "),
        2,
        message,
      ]);
    }
  });
}, 60_000);
