import { adminJson } from "../shared/timed-http.js";

/** The account every reconciliation benchmark's statements are for. */
export const STATEMENT_IBAN = "TR330006100519786457841326";

/**
 * The account a statement is for, and a firm that deposits into it without any bound in the way
 * (rate, pending count and amount), whose queries carry each deposit's payment code, which the
 * statement's lines then name.
 */
export async function statementScene(
  url: string,
  token: string,
  firm: { name: string; webhook_url: string },
): Promise<{ account: { id: number }; firm: { id: number; api_key: string; secret_key: string } }> {
  const account = await adminJson(url, token, "POST", "/admin/v1/accounts", {
    bank_name: "Ziraat Bankası",
    holder_name: "Ödeme Hizmetleri A.Ş.",
    iban: STATEMENT_IBAN,
  });
  const made = await adminJson(url, token, "POST", "/admin/v1/firms", {
    ...firm,
    rate_limit_per_second: 100_000,
    max_pending_count: null,
    max_pending_amount: null,
  });
  // The admin API takes the switch on update only.
  await adminJson(url, token, "PATCH", `/admin/v1/firms/${made.id}`, { answer_payment_code: true });
  return { account, firm: made };
}
