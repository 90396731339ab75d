import { describe, expect, it } from "vitest";
import { approvalPosting } from "../../src/ledger/approval-posting.js";
import type { ApprovalPostingFacts } from "../../src/store/ledger/approval-facts.js";
import type { TransactionRow } from "../../src/store/transactions/transactions.js";

/** The posting of an approval never refuses it: an IBAN in any form, or none, still posts. */
describe("an approval's posting", () => {
  const row = (type: "deposit" | "withdrawal") =>
    ({
      id: 7,
      type,
      status: "approved",
      amount: 15_000,
      firm_id: 3,
      decided_at: 1_800_000_000_000,
      updated_at: 1_800_000_000_000,
      decided_by: "operator:1",
    }) as unknown as TransactionRow;
  const facts = (iban: string | null): ApprovalPostingFacts => ({
    sandbox: false,
    iban,
    schedule: undefined,
    payout: null,
  });
  const accounts = (type: "deposit" | "withdrawal", iban: string | null) =>
    approvalPosting(row(type), facts(iban))?.lines.map((l) => l.account);

  it("names the bank account's cash by its IBAN in the bank's form, however it was kept", () => {
    expect(accounts("deposit", "tr33 0006-1005 1978 6457 8413 26")).toContain(
      "cash:TR330006100519786457841326",
    );
  });

  it("a deposit whose account holds no IBAN the ledger can name waits in suspense", () => {
    expect(accounts("deposit", "not an iban")).toContain("suspense");
    expect(accounts("deposit", null)).toContain("suspense");
  });

  it("a withdrawal paid by a payout leaves the paying account; one paid by hand goes into transit", () => {
    expect(accounts("withdrawal", "TR330006100519786457841326")).toEqual([
      "firm:3",
      "cash:TR330006100519786457841326",
    ]);
    expect(accounts("withdrawal", null)).toEqual(["firm:3", "in_transit:3"]);
  });

  it("a withdrawal whose payout's sending posted moves out of transit, never out of the firm again", () => {
    const sent = (iban: string | null, sentPosted: boolean) =>
      approvalPosting(row("withdrawal"), { ...facts(iban), payout: { attemptId: 41, sentPosted } });
    expect(sent("TR330006100519786457841326", true)).toMatchObject({
      key: "payout-paid:41",
      lines: [
        { account: "in_transit:3", amount: 15_000 },
        { account: "cash:TR330006100519786457841326", amount: -15_000 },
      ],
    });
    // Sent before sending posted: the firm is debited now, as before.
    expect(sent("TR330006100519786457841326", false)).toMatchObject({
      key: "withdrawal-paid:7",
      lines: [{ account: "firm:3" }, { account: "cash:TR330006100519786457841326" }],
    });
    // From an account the ledger cannot name: the money stays in transit; with no commission, nothing posts.
    expect(sent("not an iban", true)).toBeNull();
    const charged = approvalPosting(row("withdrawal"), {
      ...facts(null),
      payout: { attemptId: 41, sentPosted: true },
      schedule: { firmId: 3, kind: "withdrawal", percentBp: 0, fixed: 250, min: null, max: null, fromAt: 0 },
    });
    expect(charged).toMatchObject({
      key: "payout-paid:41",
      lines: [
        { account: "firm:3", amount: 250 },
        { account: "commission", amount: -250 },
      ],
    });
  });

  it("a test firm's approval posts nothing", () => {
    expect(
      approvalPosting(row("deposit"), { ...facts("TR330006100519786457841326"), sandbox: true }),
    ).toBeNull();
  });
});
