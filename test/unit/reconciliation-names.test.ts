import { describe, expect, it } from "vitest";
import { type DepositCandidate, matchLine } from "../../src/reconciliation/matching.js";
import { nameEvidence, type PayerName, senderName } from "../../src/reconciliation/name-evidence.js";
import type { StatementLine } from "../../src/reconciliation/statement.js";

/**
 * What a sender's name proves (issue 45): a name the bank cut at 35 characters proves a payer only
 * when the cut falls inside its last word and what is seen fits no other candidate's payer; a name
 * with a company's legal form in it is never a person's full name.
 */
const NOW = Date.UTC(2026, 10, 2, 12);
const ctx = {
  pendingWindowMs: 3_600_000,
  clockToleranceMs: 60_000,
  policyOf: () => ({ autoApprove: true, nameMayApprove: true }),
};
const deposit = (id: number, payer: PayerName, amountMinor = 150_000): DepositCandidate => ({
  id,
  firmId: 1,
  accountId: 1,
  status: "pending",
  amountMinor,
  createdAt: NOW - 600_000 + id,
  payer,
  paymentCode: null,
  userId: `user-${id}`,
  reference: `ref-${id}`,
  sandbox: false,
  settled: false,
});
const line = (senderName: string, amountMinor = 150_000): StatementLine => ({
  bookedAt: NOW,
  dateOnly: false,
  amountMinor,
  direction: "credit",
  currency: "TRY",
  senderName,
  senderIban: null,
  description: "",
  bankRef: "r1",
});

/** 35 characters: the bank's field is full, "ABDURRAH" is where it stopped. */
const CUT = "HACIMUSTAFAOGULLARI MEHMET ABDURRAH";
const abdurrahim = { firstName: "Mehmet", middleName: "Abdurrahim", lastName: "Hacımustafaoğulları" };
const abdurrahman = { firstName: "Mehmet", middleName: "Abdurrahman", lastName: "Hacımustafaoğulları" };

describe("a name the bank cut", () => {
  it("is the test's name: 35 characters, so it may have been cut", () => {
    expect(CUT).toHaveLength(35);
    expect(senderName(CUT)?.cut).toBe(true);
  });

  it("whose last word is a beginning proves no one when another candidate's payer fits it too", () => {
    // ABDURRAH stood for Abdurrahim's middle name by its beginning, the surname and the first name
    // as they are: Abdurrahman's name fits as well, and his deposit is one the line may be for.
    const outcome = matchLine(line(CUT), [deposit(1, abdurrahim), deposit(2, abdurrahman, 275_000)], ctx);
    expect(outcome.kind).toBe("suggest");
    expect(outcome.kind === "suggest" && outcome.suggestions[0]).toMatchObject({
      depositId: 1,
      evidence: { amount: "exact", name: "partial" },
    });
    // The same when the beginning stands for a second first name, or the other merchant sent no
    // middle name (Mehmet H.'s own may begin so).
    const twoFirst = { firstName: "Mehmet Abdurrahim", middleName: null, lastName: "Hacımustafaoğulları" };
    const noMiddle = { firstName: "Mehmet", middleName: null, lastName: "Hacımustafaoğulları" };
    expect(matchLine(line(CUT), [deposit(1, twoFirst), deposit(2, abdurrahman, 1)], ctx).kind).toBe(
      "suggest",
    );
    expect(matchLine(line(CUT), [deposit(1, abdurrahim), deposit(2, noMiddle, 1)], ctx).kind).toBe("suggest");
    // Already decided, of another amount, is still a person the name fits.
    const rejected = { ...deposit(2, abdurrahman), status: "rejected" as const };
    expect(matchLine(line(CUT), [deposit(1, abdurrahim), rejected], ctx).kind).toBe("suggest");
  });

  it("whose last word is a beginning proves the one payer it fits, when the rest is there as it is", () => {
    expect(nameEvidence(CUT, abdurrahim)).toBe("full");
    expect(matchLine(line(CUT), [deposit(1, abdurrahim)], ctx)).toMatchObject({
      kind: "approve",
      depositId: 1,
      proof: "name",
    });
    // The same person's other deposit is no other person: the amount tells them apart.
    const again = deposit(2, { ...abdurrahim }, 275_000);
    expect(matchLine(line(CUT), [deposit(1, abdurrahim), again], ctx)).toMatchObject({
      kind: "approve",
      depositId: 1,
    });
  });

  it("whose last word stands for nothing of the payer's proves no one: it began a word unknown", () => {
    // Mehmet H. with no middle name sent: ABDURRAH was taken for his own middle name, whole.
    const noMiddle = { firstName: "Mehmet", middleName: null, lastName: "Hacımustafaoğulları" };
    expect(nameEvidence(CUT, noMiddle)).toBe("partial");
    expect(matchLine(line(CUT), [deposit(1, noMiddle)], ctx).kind).toBe("suggest");
  });

  it("whose beginning stands for a word while another is missing or one is too many proves no one", () => {
    const long = { firstName: "Abdurrahman Mustafa", middleName: "Kemal", lastName: "Hacımustafaoğulları" };
    expect(nameEvidence("HACIMUSTAFAOGULLARI ABDURRAHMAN MUS", long)).toBe("partial");
    expect(nameEvidence("HACIMUSTAFAOGULLARI KEMAL ABDURRAHM", { ...long, firstName: "Abdurrahman" })).toBe(
      "full",
    );
    const noMiddle = { ...long, middleName: null };
    expect(nameEvidence("HACIMUSTAFAOGULLARI ALI ABDURRAHMAN MUSTAFA", noMiddle)).toBe("full");
    expect(nameEvidence("HACIMUSTAFAOGULLARI ALI ABDURRAHMAN", noMiddle)).toBe("partial");
  });

  it("the surname known by its beginning stays partial, whatever else", () => {
    const payer = { firstName: "Muhammed Mustafa", middleName: "Kemal", lastName: "Karamanoğulları" };
    expect(nameEvidence("MUHAMMED MUSTAFA KEMAL KARAMANOGULL", payer)).toBe("partial");
    expect(matchLine(line("MUHAMMED MUSTAFA KEMAL KARAMANOGULL"), [deposit(1, payer)], ctx).kind).toBe(
      "suggest",
    );
  });
});

describe("a company's name", () => {
  const kemal = { firstName: "Kemal", middleName: null, lastName: "Sunal" };

  it.each([
    "KEMAL SUNAL LTD",
    "KEMAL SUNAL AŞ",
    "Kemal Sunal A.Ş.",
    "SUNAL KEMAL A.S.",
    "KEMAL SUNAL TİC",
    "KEMAL SUNAL ŞTİ",
    "KEMAL SUNAL LTD.ŞTİ.",
    "KEMAL SUNAL SAN",
    "KEMAL SUNAL INC",
  ])("%s is at most partial for Kemal Sunal", (sender) => {
    expect(senderName(sender)?.company).toBe(true);
    expect(nameEvidence(sender, kemal)).toBe("partial");
  });

  it("never approves a deposit by the name, and a person's name still does", () => {
    expect(matchLine(line("KEMAL SUNAL LTD"), [deposit(1, kemal)], ctx).kind).toBe("suggest");
    expect(matchLine(line("KEMAL SUNAL"), [deposit(1, kemal)], ctx).kind).toBe("approve");
    expect(senderName("AHMET SAMI ASLAN")?.company).toBe(false);
  });
});
