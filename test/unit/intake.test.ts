import { describe, expect, it } from "vitest";
import type { Firm } from "../../src/domain/firm.js";
import type { NewTransaction, WriteFailure } from "../../src/domain/transaction.js";
import { createDeposit, createWithdrawal, type IntakePorts } from "../../src/intake/intake.js";
import type { DepositRequest, WithdrawalRequest } from "../../src/intake/requests.js";
import { type AccountCandidate, pickAccount } from "../../src/routing/account-order.js";
import { accountCandidate } from "../support/accounts.js";

const NOW = Date.UTC(2026, 10, 22, 10, 15, 30);

function firm(overrides: Partial<Firm> = {}): Firm {
  return {
    id: 7,
    name: "Firm",
    secret: "sk",
    active: true,
    webhookUrl: "https://hooks.example/cb",
    providerCallbackUrl: null,
    legacyHttp: false,
    callbackMiddleName: false,
    answerPaymentCode: false,
    depositMin: null,
    depositMax: null,
    maxPendingCount: 1000,
    maxPendingAmount: 200_000_000,
    maxCapShare: null,
    depositsOpen: true,
    withdrawalsOpen: true,
    rateLimitPerSecond: 100,
    sandbox: false,
    ...overrides,
  };
}

const account = accountCandidate;

function depositReq(overrides: Partial<DepositRequest> = {}): DepositRequest & { amountMinor: number } {
  return {
    bankCode: "ZIRAAT",
    firstName: "Ayşe",
    lastName: "Yılmaz",
    middleName: null,
    username: "ayse",
    userId: "U-1",
    reference: "ORD-1",
    nationalId: "12345678901",
    ignoredFields: null,
    amountMinor: 15_000,
    redirect: false,
    method: "fast",
    returnUrl: null,
    ...overrides,
  } as DepositRequest & { amountMinor: number };
}

function withdrawalReq(overrides: Partial<WithdrawalRequest> = {}): WithdrawalRequest {
  return {
    bankCode: "ZIRAAT",
    firstName: "Çağrı",
    lastName: "Öztürk",
    middleName: null,
    username: "cagri",
    userId: "U-2",
    reference: "WD-1",
    ignoredFields: null,
    nationalId: null,
    amountMinor: 25_000,
    method: "eft",
    iban: "TR330006100519786457841326",
    ...overrides,
  };
}

interface Facts {
  referenceUsed: boolean;
  userBanned: boolean;
  pendingExists: boolean;
}

/** An insert that failed, as the store's port reports it: a batch with no answer may yet be written. */
function failedWrite(message: string): WriteFailure {
  const failed = message.includes("no answer") ? "outcome_unknown" : "nothing_written";
  return { ok: false, failed, cause: new Error(message) };
}

function ports(
  opts: {
    facts?: Partial<Facts>;
    accounts?: AccountCandidate[];
    insert?: { ok: true; id: number } | { ok: false; conflict: "reference" | "one_pending" };
    holder?: { accountId: number | null; amountMinor: number };
  } = {},
) {
  const calls = {
    facts: [] as unknown[][],
    eligible: [] as number[],
    inserts: [] as { tx: NewTransaction }[],
    sealed: [] as string[],
    released: [] as number[],
    /** Daily cap holds ended (`written`). */
    holdsEnded: 0,
    /** Notices to the consoles' queues. */
    queued: [] as string[],
  };
  const p: IntakePorts = {
    async businessFacts(...args) {
      calls.facts.push(args);
      return {
        referenceUsed: false,
        userBanned: false,
        pendingExists: false,
        firmPending: { count: 0, amountMinor: 0 },
        ...opts.facts,
      };
    },
    async route(input) {
      calls.eligible.push(input.amountMinor);
      const picked = pickAccount(opts.accounts ?? [account(1)], input.amountMinor);
      return picked
        ? {
            ok: true,
            account: picked,
            log: [],
            written: () => void calls.holdsEnded++,
            release: async () => void calls.released.push(picked.id),
          }
        : { ok: false, rejection: "no_account" };
    },
    async insert(tx) {
      calls.inserts.push({ tx });
      return opts.insert ?? { ok: true, id: 101 };
    },
    async holderOf() {
      return opts.holder;
    },
    sealNationalId(value) {
      calls.sealed.push(value);
      return `sealed(${value})`;
    },
    queued: (type) => void calls.queued.push(type),
    now: () => NOW,
  };
  return { ports: p, calls };
}

describe("createDeposit: business rules in the decided order", () => {
  const everythingWrong = { referenceUsed: true, userBanned: true, pendingExists: true };

  it("duplicate reference wins over every other rule", async () => {
    const { ports: p, calls } = ports({ facts: everythingWrong, accounts: [] });
    const r = await createDeposit(
      p,
      firm({ depositsOpen: false, depositMax: 1 }),
      depositReq(),
      "https://cb",
    );
    expect(r).toEqual({ ok: false, rejection: "duplicate_reference" });
    expect(calls.inserts).toHaveLength(0);
  });

  it("then deposits closed", async () => {
    const { ports: p } = ports({ facts: { userBanned: true, pendingExists: true }, accounts: [] });
    const r = await createDeposit(
      p,
      firm({ depositsOpen: false, depositMax: 1 }),
      depositReq(),
      "https://cb",
    );
    expect(r).toEqual({ ok: false, rejection: "deposits_closed" });
  });

  it("then user banned", async () => {
    const { ports: p } = ports({ facts: { userBanned: true, pendingExists: true }, accounts: [] });
    const r = await createDeposit(p, firm({ depositMax: 1 }), depositReq(), "https://cb");
    expect(r).toEqual({ ok: false, rejection: "user_banned" });
  });

  it("then amount outside the firm's limits (below min or above max)", async () => {
    const { ports: p } = ports({ facts: { pendingExists: true }, accounts: [] });
    expect(await createDeposit(p, firm({ depositMin: 15_001 }), depositReq(), "https://cb")).toEqual({
      ok: false,
      rejection: "amount_out_of_limits",
    });
    expect(await createDeposit(p, firm({ depositMax: 14_999 }), depositReq(), "https://cb")).toEqual({
      ok: false,
      rejection: "amount_out_of_limits",
    });
  });

  it("limits are inclusive", async () => {
    const { ports: p } = ports();
    const r = await createDeposit(
      p,
      firm({ depositMin: 15_000, depositMax: 15_000 }),
      depositReq(),
      "https://cb",
    );
    expect(r.ok).toBe(true);
  });

  it("then a pending deposit for the same user", async () => {
    const { ports: p, calls } = ports({ facts: { pendingExists: true }, accounts: [] });
    expect(await createDeposit(p, firm(), depositReq(), "https://cb")).toEqual({
      ok: false,
      rejection: "pending_exists",
    });
    expect(calls.eligible).toHaveLength(0);
  });

  it("then routing: no eligible account", async () => {
    const { ports: p, calls } = ports({
      accounts: [account(1, { active: false }), account(2, { maxAmount: 100 })],
    });
    expect(await createDeposit(p, firm(), depositReq(), "https://cb")).toEqual({
      ok: false,
      rejection: "no_account",
    });
    expect(calls.inserts).toHaveLength(0);
  });

  it("asks for facts about this firm, reference, user and type", async () => {
    const { ports: p, calls } = ports();
    await createDeposit(p, firm(), depositReq(), "https://cb");
    expect(calls.facts).toEqual([[7, "ORD-1", "U-1", "deposit"]]);
    expect(calls.eligible).toEqual([15_000]);
  });
});

describe("createDeposit: the stored record", () => {
  it("inserts a pending deposit with the picked account and masked, sealed national id", async () => {
    const accounts = [
      account(1, { lastAssignedAt: 50 }),
      account(2, { lastAssignedAt: 10, bankName: "Akbank" }),
    ];
    const { ports: p, calls } = ports({ accounts });
    const r = await createDeposit(
      p,
      firm(),
      depositReq({ middleName: "Can", method: "havale" }),
      "https://hooks.example/cb/1",
    );
    expect(r).toEqual({ ok: true, id: 101, account: accounts[1] });
    expect(calls.inserts).toHaveLength(1);
    expect(calls.inserts[0]?.tx.account_id).toBe(2);
    expect(calls.inserts[0]?.tx).toEqual({
      firm_id: 7,
      reference: "ORD-1",
      type: "deposit",
      status: "pending",
      amount: 15_000,
      method: "havale",
      first_name: "Ayşe",
      last_name: "Yılmaz",
      middle_name: "Can",
      username: "ayse",
      user_id: "U-1",
      national_id_masked: "12***01",
      national_id_sealed: "sealed(12345678901)",
      bank_code: "ZIRAAT",
      iban: null,
      iban_valid: null,
      account_id: 2,
      assigned_bank_name: "Akbank",
      assigned_holder_name: "Ödeme Hizmetleri A.Ş.",
      assigned_iban: "TR330006100519786457841326",
      callback_url: "https://hooks.example/cb/1",
      routing_log: "[]",
      payer_name_key: " ayse can yilmaz",
      ignored_fields: null,
      created_at: NOW,
      updated_at: NOW,
    });
  });

  it("stores no national id when none was sent, and seals nothing", async () => {
    const { ports: p, calls } = ports();
    await createDeposit(p, firm(), depositReq({ nationalId: null }), "https://cb");
    expect(calls.inserts[0]?.tx.national_id_masked).toBeNull();
    expect(calls.inserts[0]?.tx.national_id_sealed).toBeNull();
    expect(calls.sealed).toHaveLength(0);
  });

  it("maps insert conflicts to the same rejections as the pre-checks", async () => {
    const dup = ports({ insert: { ok: false, conflict: "reference" } });
    expect(await createDeposit(dup.ports, firm(), depositReq(), "https://cb")).toEqual({
      ok: false,
      rejection: "duplicate_reference",
    });
    const pending = ports({ insert: { ok: false, conflict: "one_pending" } });
    expect(await createDeposit(pending.ports, firm(), depositReq(), "https://cb")).toEqual({
      ok: false,
      rejection: "pending_exists",
    });
  });
});

describe("createWithdrawal", () => {
  it("checks duplicate reference, closed, banned, pending, in that order", async () => {
    const all = { referenceUsed: true, userBanned: true, pendingExists: true };
    expect(
      await createWithdrawal(
        ports({ facts: all }).ports,
        firm({ withdrawalsOpen: false }),
        withdrawalReq(),
        "https://cb",
      ),
    ).toEqual({ ok: false, rejection: "duplicate_reference" });
    expect(
      await createWithdrawal(
        ports({ facts: { userBanned: true, pendingExists: true } }).ports,
        firm({ withdrawalsOpen: false }),
        withdrawalReq(),
        "https://cb",
      ),
    ).toEqual({ ok: false, rejection: "withdrawals_closed" });
    expect(
      await createWithdrawal(
        ports({ facts: { userBanned: true, pendingExists: true } }).ports,
        firm(),
        withdrawalReq(),
        "https://cb",
      ),
    ).toEqual({ ok: false, rejection: "user_banned" });
    expect(
      await createWithdrawal(
        ports({ facts: { pendingExists: true } }).ports,
        firm(),
        withdrawalReq(),
        "https://cb",
      ),
    ).toEqual({ ok: false, rejection: "pending_exists" });
  });

  it("is not affected by deposit switches and deposit limits", async () => {
    const { ports: p } = ports();
    const r = await createWithdrawal(
      p,
      firm({ depositsOpen: false, depositMin: 1_000_000, depositMax: 1 }),
      withdrawalReq(),
      "https://cb",
    );
    expect(r).toEqual({ ok: true, id: 101 });
  });

  it("asks for withdrawal facts and never routes", async () => {
    const { ports: p, calls } = ports();
    await createWithdrawal(p, firm(), withdrawalReq(), "https://cb");
    expect(calls.facts).toEqual([[7, "WD-1", "U-2", "withdrawal"]]);
    expect(calls.eligible).toHaveLength(0);
  });

  it("inserts a pending withdrawal with the IBAN as sent and its validity flag", async () => {
    const { ports: p, calls } = ports();
    await createWithdrawal(p, firm(), withdrawalReq({ nationalId: "123456" }), "https://hooks.example/cb");
    expect(calls.inserts[0]).toEqual({
      tx: {
        firm_id: 7,
        reference: "WD-1",
        type: "withdrawal",
        status: "pending",
        amount: 25_000,
        method: "eft",
        first_name: "Çağrı",
        last_name: "Öztürk",
        middle_name: null,
        username: "cagri",
        user_id: "U-2",
        national_id_masked: "12***56",
        national_id_sealed: "sealed(123456)",
        bank_code: "ZIRAAT",
        iban: "TR330006100519786457841326",
        iban_valid: 1,
        account_id: null,
        assigned_bank_name: null,
        assigned_holder_name: null,
        assigned_iban: null,
        callback_url: "https://hooks.example/cb",
        routing_log: null,
        payer_name_key: " cagri ozturk",
        ignored_fields: null,
        created_at: NOW,
        updated_at: NOW,
      },
    });
  });

  it.each([
    [null, 0],
    ["not-an-iban", 0],
    ["TR340006100519786457841326", 0],
    ["DE89370400440532013000", 0],
    ["TR33 0006 1005 1978 6457 8413 26", 1],
  ])("a withdrawal with IBAN %j is created pending with iban_valid %i", async (iban, valid) => {
    const { ports: p, calls } = ports();
    expect(await createWithdrawal(p, firm(), withdrawalReq({ iban }), "https://cb")).toEqual({
      ok: true,
      id: 101,
    });
    expect(calls.inserts[0]?.tx.status).toBe("pending");
    expect(calls.inserts[0]?.tx.iban).toBe(iban);
    expect(calls.inserts[0]?.tx.iban_valid).toBe(valid);
  });

  it("maps insert conflicts", async () => {
    expect(
      await createWithdrawal(
        ports({ insert: { ok: false, conflict: "reference" } }).ports,
        firm(),
        withdrawalReq(),
        "x",
      ),
    ).toEqual({ ok: false, rejection: "duplicate_reference" });
    expect(
      await createWithdrawal(
        ports({ insert: { ok: false, conflict: "one_pending" } }).ports,
        firm(),
        withdrawalReq(),
        "x",
      ),
    ).toEqual({ ok: false, rejection: "pending_exists" });
  });
});

describe("createDeposit: releasing a channel's reservation", () => {
  it("releases when the insert loses the one-pending race; on a reference conflict only an ask that is not the winner's", async () => {
    const pending = ports({ insert: { ok: false, conflict: "one_pending" } });
    expect(await createDeposit(pending.ports, firm(), depositReq(), "https://cb")).toEqual({
      ok: false,
      rejection: "pending_exists",
    });
    expect(pending.calls.released).toEqual([1]);
    // The winner asked the same account for the same amount: the same ask, its reservation stays.
    const same = ports({
      insert: { ok: false, conflict: "reference" },
      holder: { accountId: 1, amountMinor: 15_000 },
    });
    expect(await createDeposit(same.ports, firm(), depositReq(), "https://cb")).toEqual({
      ok: false,
      rejection: "duplicate_reference",
    });
    expect(same.calls.released).toEqual([]);
    // The winner got another account (or amount): this ask is nobody's, so it is let go.
    for (const holder of [
      { accountId: 2, amountMinor: 15_000 },
      { accountId: 1, amountMinor: 25_000 },
    ]) {
      const other = ports({ insert: { ok: false, conflict: "reference" }, holder });
      expect(await createDeposit(other.ports, firm(), depositReq(), "https://cb")).toEqual({
        ok: false,
        rejection: "duplicate_reference",
      });
      expect(other.calls.released).toEqual([1]);
    }
  });

  it("releases, ends the hold and rethrows when the insert failed writing nothing", async () => {
    const broken = ports();
    broken.ports.insert = async () => failedWrite("disk full");
    await expect(createDeposit(broken.ports, firm(), depositReq(), "https://cb")).rejects.toThrow(
      "disk full",
    );
    expect(broken.calls.released).toEqual([1]);
    expect(broken.calls.holdsEnded).toBe(1);
  });

  it("rethrows when the insert's outcome is unknown, keeping the ask and the hold (the row may yet be written)", async () => {
    const broken = ports();
    broken.ports.insert = async () => failedWrite("a batch of 3 got no answer within 10000 ms");
    await expect(createDeposit(broken.ports, firm(), depositReq(), "https://cb")).rejects.toThrow(
      "no answer",
    );
    expect(broken.calls.released).toEqual([]);
    // Its outcome is unknown (the row may still be written): the daily cap's hold is kept to expire.
    expect(broken.calls.holdsEnded).toBe(0);
  });

  it("ends the daily cap's hold once the insert answered, written or refused", async () => {
    const written = ports();
    await createDeposit(written.ports, firm(), depositReq(), "https://cb");
    expect(written.calls.holdsEnded).toBe(1);
    const refused = ports({ insert: { ok: false, conflict: "one_pending" } });
    await createDeposit(refused.ports, firm(), depositReq(), "https://cb");
    expect(refused.calls.holdsEnded).toBe(1);
  });
});

describe("the consoles' queues are told of a live firm's new transaction", () => {
  it("once it is written, or may have been; never for a refusal or a test firm", async () => {
    const written = ports();
    await createDeposit(written.ports, firm(), depositReq(), "https://cb");
    await createWithdrawal(written.ports, firm(), withdrawalReq(), "https://cb");
    expect(written.calls.queued).toEqual(["deposit", "withdrawal"]);

    const refused = ports({ insert: { ok: false, conflict: "one_pending" } });
    await createDeposit(refused.ports, firm(), depositReq(), "https://cb");
    await createWithdrawal(refused.ports, firm(), withdrawalReq(), "https://cb");
    const rejected = ports({ facts: { userBanned: true } });
    await createDeposit(rejected.ports, firm(), depositReq(), "https://cb");
    const sandbox = ports();
    await createDeposit(sandbox.ports, firm({ sandbox: true }), depositReq(), "https://cb");
    await createWithdrawal(sandbox.ports, firm({ sandbox: true }), withdrawalReq(), "https://cb");
    expect([...refused.calls.queued, ...rejected.calls.queued, ...sandbox.calls.queued]).toEqual([]);

    for (const [message, told] of [
      ["a batch of 3 got no answer within 10000 ms", ["deposit", "withdrawal"]],
      ["disk full", []],
    ] as const) {
      const broken = ports();
      broken.ports.insert = async () => failedWrite(message);
      await expect(createDeposit(broken.ports, firm(), depositReq(), "https://cb")).rejects.toThrow(message);
      await expect(createWithdrawal(broken.ports, firm(), withdrawalReq(), "https://cb")).rejects.toThrow(
        message,
      );
      expect(broken.calls.queued).toEqual(told);
    }
  });
});
