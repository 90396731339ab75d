/**
 * A batch's bank file: the same bytes whenever it is downloaded (the batch's own time and ids, no
 * clock), in a pain.001 version or a bank's template (shipped, or added by an admin). A file is not
 * given before a second approval the rules ask for. What the operator must know comes with it as
 * notices: a bank template downloaded after the batch was marked sent (uploading it again would pay
 * twice), an EFT file made outside EFT hours.
 */
import { notFound, type Outcome, refusal } from "../domain/refusal.js";
import { turkeyDayOf } from "../domain/turkey-time.js";
import type { Repositories } from "../store/index.js";
import { type BankTemplate, parseBankTemplate } from "./files/bank-template.js";
import { type BatchFileInput, batchFileProblems, type FileChunks } from "./files/batch-file.js";
import { batchFile, batchFileType, findBatchFileFormat } from "./files/formats.js";
import { PAIN001_VERSIONS } from "./files/pain001.js";
import { SHIPPED_TEMPLATES } from "./files/shipped-templates.js";
import { withinEftHours } from "./rules.js";

/** What the operator must know of a file: a code for screens, and its words for the CLI. */
export interface FileNotice {
  code: "sent_already" | "outside_eft_hours";
  message: string;
}

export interface BatchFileDownload {
  fileName: string;
  contentType: string;
  chunks: FileChunks;
  notices: FileNotice[];
}

export const TEMPLATE_SCOPE = "template:";

/** The shipped templates, then those an admin added (an added one of the same code wins). */
export async function bankTemplates(repos: Repositories): Promise<BankTemplate[]> {
  const added: BankTemplate[] = [];
  for (const [scope, json] of await repos.payoutSettings.all()) {
    if (!scope.startsWith(TEMPLATE_SCOPE)) continue;
    const parsed = parseBankTemplate(json);
    if (parsed.ok) added.push(parsed.template);
  }
  const codes = new Set(added.map((t) => t.code));
  return [...added, ...SHIPPED_TEMPLATES.filter((t) => !codes.has(t.code))];
}

export async function batchFileOf(
  deps: { repos: Repositories; now(): number },
  id: number,
  formatName: string,
  actor: string,
): Promise<Outcome<BatchFileDownload>> {
  const { repos } = deps;
  const batch = await repos.payoutBatches.get(id);
  if (!batch) return notFound("payout_batch");
  if (batch.stage === "second_approval")
    return refusal("payout_second_approval_pending", "the batch waits for a second operator's approval");
  if (batch.stage === "cancelled")
    return refusal("payout_batch_stage", "the batch was cancelled: its file pays nothing");
  const templates = await bankTemplates(repos);
  const format = findBatchFileFormat(formatName, templates);
  if (!format)
    return refusal(
      "payout_unknown_format",
      `"${formatName}" is none of ${[...PAIN001_VERSIONS, ...templates.map((t) => t.code)].join(", ")}`,
    );
  const account = await repos.accounts.get(batch.account_id);
  if (!account) return notFound("account");
  const rows = await repos.payoutBatches.fileRowsOf(id);
  const input: BatchFileInput = {
    batchId: batch.id,
    messageId: `PAYINTAKE-B${batch.id}`,
    createdAt: Number(batch.created_at),
    executionDate: turkeyDayOf(Number(batch.created_at)),
    debtor: {
      name: account.holder_name,
      iban: account.iban.replace(/\s+/g, ""),
      bankName: account.bank_name,
    },
    payouts: rows.map((r) => ({
      paymentId: r.payment_id,
      amountMinor: Number(r.amount),
      payeeName: r.payee_name,
      payeeIban: r.payee_iban,
      method: r.method,
      remittance: r.reference,
    })),
  };
  const problems = batchFileProblems(input);
  if (problems.length > 0)
    return refusal("payout_batch_stage", `the file cannot be written: ${problems.join("; ")}`);
  const notices: FileNotice[] = [];
  if (batch.sent_at !== null && format.kind === "template")
    notices.push({
      code: "sent_already",
      message: "this batch was marked sent already: uploading this file again pays it twice",
    });
  const now = deps.now();
  if (rows.some((r) => r.method === "EFT") && !withinEftHours(now))
    notices.push({
      code: "outside_eft_hours",
      message:
        "made outside EFT hours (weekdays 08:30–17:30 in Türkiye): its EFT payouts go at the next opening",
    });
  await repos.payoutBatches.fileTaken(id, formatName, actor, now);
  return { ok: true, value: { ...batchFileType(input, format), chunks: batchFile(input, format), notices } };
}
