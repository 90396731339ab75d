import type { DepositInput, PayintakeClient } from "../../packages/client/src/index.js";

/**
 * Compile-time checks of the client's request types (packages/client, `Exact`), checked by
 * `npm run check` (tsconfig.json takes in test/): each `@ts-expect-error` must meet an error, so a
 * type that let an unknown field through again fails the check. Never run: only compiled.
 */
export async function exactInputs(client: PayintakeClient): Promise<void> {
  const payer = {
    bank_code: "AKBANK",
    first_name: "Ayşe",
    last_name: "Yılmaz",
    username: "ayse",
    user_id: "U-1",
    reference: "DEP-1",
  };

  // The contract's fields, in a literal or an object built beforehand: accepted.
  await client.createDeposit({ ...payer, amount: "150.00", method: "eft", middle_name: "Nur" });
  const built: DepositInput = { ...payer, amount: "150.00" };
  await client.createDeposit(built);
  await client.createHostedDeposit({ ...payer, return_url: "https://shop.example/back" });
  await client.createWithdrawal({ ...payer, amount: "250.50", iban: "TR330006100519786457841326" });

  // The balance's options: a misspelt one would be dropped from the query without a word.
  await client.getBalance({ at: new Date() });
  await client.getBalanceDay("2026-12-07", { after: "1.2", limit: 500 });
  const paging = { after: "1.2", limmit: 500 };
  // @ts-expect-error limmit is not an option: limit is
  await client.getBalanceDay("2026-12-07", paging);

  // A misspelt field in a literal.
  // @ts-expect-error returnUrl is not a field: return_url is
  await client.createHostedDeposit({ ...payer, returnUrl: "https://shop.example/back" });

  // In an object built beforehand, where TypeScript's excess-property check does not look.
  const misspelt = { ...payer, amount: "150.00", nationalid: "12345678901" };
  // @ts-expect-error nationalid is not a field: national_id is
  await client.createDeposit(misspelt);
  const hosted = { ...payer, returnUrl: "https://shop.example/back" };
  // @ts-expect-error returnUrl is not a field: return_url is
  await client.createHostedDeposit(hosted);
  const payout = { ...payer, amount: "250.50", IBAN: "TR330006100519786457841326" };
  // @ts-expect-error IBAN is not a field: iban is
  await client.createWithdrawal(payout);
}
