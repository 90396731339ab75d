import { describe, expect, it } from "vitest";
import {
  callbackBody,
  callbackDraft,
  callbackMessage,
  callbackOrigin,
  type DecidedTransaction,
} from "../../src/callbacks/message.js";
import { planDecision } from "../../src/decisions/plan.js";
import { type Approver, mayApproveMoreThanAsked } from "../../src/domain/actors.js";

const pending = { type: "deposit" as const, status: "pending" as const, amount: 15_000 };

describe("planDecision", () => {
  it("only pending can move", () => {
    for (const status of ["approved", "rejected"] as const) {
      expect(planDecision({ ...pending, status }, { kind: "approve" })).toEqual({
        ok: false,
        refusal: "not_pending",
      });
      expect(planDecision({ ...pending, status }, { kind: "reject" })).toEqual({
        ok: false,
        refusal: "not_pending",
      });
    }
  });

  it("approves with the amount asked for, or records the original when another is approved", () => {
    expect(planDecision(pending, { kind: "approve" })).toEqual({
      ok: true,
      plan: { status: "approved", amount: 15_000, originalAmount: null, note: null },
    });
    expect(planDecision(pending, { kind: "approve", amountMinor: 15_000 })).toMatchObject({
      plan: { amount: 15_000, originalAmount: null },
    });
    expect(planDecision(pending, { kind: "approve", amountMinor: 14_950, note: " sent less " })).toEqual({
      ok: true,
      plan: { status: "approved", amount: 14_950, originalAmount: 15_000, note: "sent less" },
    });
  });

  it("more than asked for only by a decider who may (an admin, the admin API): found by review, any sum went", () => {
    expect(planDecision(pending, { kind: "approve", amountMinor: 15_001 })).toEqual({
      ok: false,
      refusal: "above_asked",
    });
    expect(planDecision(pending, { kind: "approve", amountMinor: 99_999_999_999 })).toEqual({
      ok: false,
      refusal: "above_asked",
    });
    expect(
      planDecision(pending, {
        kind: "approve",
        amountMinor: 15_001,
        by: { kind: "operator", role: "admin" },
      }),
    ).toMatchObject({ ok: true, plan: { amount: 15_001, originalAmount: 15_000 } });
    // One rule for every door: the console's roles, the admin API, a test firm's rehearsal.
    const approvers: [Approver, boolean][] = [
      [{ kind: "operator", role: "operator" }, false],
      [{ kind: "operator", role: "viewer" }, false],
      [{ kind: "operator", role: "admin" }, true],
      [{ kind: "admin_api" }, true],
      [{ kind: "sandbox" }, true],
    ];
    for (const [by, may] of approvers) {
      expect(mayApproveMoreThanAsked(by)).toBe(may);
      expect(planDecision(pending, { kind: "approve", amountMinor: 15_001, by }).ok).toBe(may);
    }
    // The sum asked for or less needs no one else.
    expect(planDecision(pending, { kind: "approve", amountMinor: 15_000 })).toMatchObject({ ok: true });
    expect(planDecision(pending, { kind: "approve", amountMinor: 1 })).toMatchObject({ ok: true });
  });

  it("a withdrawal's amount cannot be changed; rejecting keeps the amount; blank notes are no note", () => {
    expect(planDecision({ ...pending, type: "withdrawal" }, { kind: "approve", amountMinor: 1 })).toEqual({
      ok: false,
      refusal: "amount_on_withdrawal",
    });
    expect(planDecision({ ...pending, type: "withdrawal" }, { kind: "approve" })).toMatchObject({ ok: true });
    expect(planDecision(pending, { kind: "reject", note: "   " })).toEqual({
      ok: true,
      plan: { status: "rejected", amount: 15_000, originalAmount: null, note: null },
    });
  });
});

const decided: DecidedTransaction = {
  id: 42,
  reference: "ORD-1",
  type: "deposit",
  status: "approved",
  amount: 15_000,
  method: "fast",
  first_name: "Ayşe",
  last_name: "Yılmaz",
  middle_name: "Can",
  username: "ayse",
  user_id: "U-1",
  created_at: Date.UTC(2026, 10, 22, 10, 0, 0),
  updated_at: Date.UTC(2026, 10, 22, 10, 5, 0, 250),
};

describe("callback message", () => {
  it("is the body decisions.md lists, byte for byte, amount with two decimals", () => {
    const m = callbackMessage(decided, { callbackMiddleName: false });
    expect(m.event).toBe("deposit.approved");
    expect(m.payload).toBe(
      '{"event":"deposit.approved","id":42,"reference":"ORD-1","type":"deposit","status":"approved","amount":150.00,"method":"fast","full_name":"Ayşe Yılmaz","username":"ayse","user_id":"U-1","created_at":"2026-11-22T10:00:00.000Z","updated_at":"2026-11-22T10:05:00.250Z"}',
    );
    expect(m.hashInput).toBe("ORD-1|deposit|approved|150.00");
  });

  it("adds middle_name only when the firm enabled it and one was kept", () => {
    expect(callbackMessage(decided, { callbackMiddleName: true }).payload).toMatch(/,"middle_name":"Can"}$/);
    expect(
      callbackMessage({ ...decided, middle_name: null }, { callbackMiddleName: true }).payload,
    ).not.toContain("middle_name");
  });

  it("a withdrawal carries its method; a rejection is its own event; small amounts keep two decimals", () => {
    const m = callbackMessage(
      { ...decided, type: "withdrawal", status: "rejected", method: "eft", amount: 5 },
      { callbackMiddleName: false },
    );
    expect(m.event).toBe("withdrawal.rejected");
    expect(m.payload).toContain('"amount":0.05,"method":"eft","full_name"');
    expect(m.hashInput).toBe("ORD-1|withdrawal|rejected|0.05");
  });

  it("a withdrawal stored without a method (written before withdrawals carried one) reads as fast", () => {
    const m = callbackMessage(
      { ...decided, type: "withdrawal", method: null },
      { callbackMiddleName: false },
    );
    expect(m.payload).toContain('"amount":150.00,"method":"fast","full_name"');
  });

  it("escapes what JSON must escape", () => {
    const m = callbackMessage(
      { ...decided, reference: 'a"b\\c', username: "x\u2028y" },
      { callbackMiddleName: false },
    );
    expect(JSON.parse(m.payload).reference).toBe('a"b\\c');
    expect(JSON.parse(m.payload).username).toBe("x\u2028y");
  });

  it("the sent body is the payload with hashcode last, and still valid JSON", () => {
    const body = callbackBody('{"a":1,"amount":150.00}', "ab12");
    expect(body).toBe('{"a":1,"amount":150.00,"hashcode":"ab12"}');
    expect(JSON.parse(body)).toEqual({ a: 1, amount: 150, hashcode: "ab12" });
  });

  it("origins write default ports out, so two spellings of one receiver are one origin", () => {
    expect(callbackOrigin("https://m.example/cb")).toBe("https://m.example:443");
    expect(callbackOrigin("https://M.example:443/x?y")).toBe("https://m.example:443");
    expect(callbackOrigin("http://m.example:8080/cb")).toBe("http://m.example:8080");
    const draft = callbackDraft(
      { ...decided, callback_url: "http://m.example/cb" },
      { callbackMiddleName: false },
    );
    expect(draft).toMatchObject({
      url: "http://m.example/cb",
      origin: "http://m.example:80",
      event: "deposit.approved",
    });
  });
});
