/**
 * The ledger's reports as CSV (docs/ledger.md, "Reports"), the same for the admin API and the
 * console: a firm's days (one line a day, the figures the days' report gives) and one day's
 * postings (every page of the day, one line a posting). Plain for machines, or for a Turkish Excel
 * (`format=excel`: a BOM, ";" and decimal commas), by the export's writer (http/csv.ts). Each figure
 * is signed as it moved the firm's balance, so a line's movements add up from its opening to its
 * closing in a sheet as in the API.
 */
import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { z } from "zod";
import { formatMinor } from "../../domain/money.js";
import type { Outcome } from "../../domain/refusal.js";
import { type CsvWriter, excelCsv, plainCsv } from "../../http/csv.js";
import { sendRefusal } from "../../http/operator-io.js";
import { DAY_MOVEMENTS, type DayPosting, type DayTotals } from "../day-report.js";
import { DAY_PAGE, type FirmDayView, type LedgerService } from "../service.js";

/** `format=excel` asks for the Excel file; without it, the plain one. */
export const csvFormat = z.enum(["excel"]).optional();

const MOVEMENTS = Object.keys(DAY_MOVEMENTS) as (keyof typeof DAY_MOVEMENTS)[];

/** A day's columns: its figures in the report's order; `other` is what no column names (zero, always, today). */
export const DAYS_CSV_COLUMNS = ["firm_id", "date", "opening", ...MOVEMENTS, "other", "closing"];
const DAYS_AMOUNTS = ["opening", ...MOVEMENTS, "other", "closing"];

/** A posting's columns: what it moved the balance by, in all and by the day's columns, and its memo. */
export const POSTINGS_CSV_COLUMNS = [
  "firm_id",
  "date",
  "posting_id",
  "at",
  "kind",
  "key",
  "amount",
  ...MOVEMENTS,
  "other",
  "memo",
];
const POSTINGS_AMOUNTS = ["amount", ...MOVEMENTS, "other"];

const writerOf = (excel: boolean, columns: string[], amounts: string[]): CsvWriter =>
  excel ? excelCsv(columns, amounts) : plainCsv(columns, amounts);

function sendCsv(reply: FastifyReply, name: string, excel: boolean, lines: AsyncIterable<string>) {
  return reply
    .code(200)
    .type("text/csv; charset=utf-8")
    .header("cache-control", "no-store")
    .header("content-disposition", `attachment; filename="${excel ? `${name}-excel` : name}.csv"`)
    .send(Readable.from(lines));
}

/** Kuruş from a figure as formatMinor wrote it ("-20.50"), digit by digit, for the sums of a posting's parts. */
function kurus(amount: string): number {
  const m = /^(-?)(\d+)\.(\d{2})$/.exec(amount);
  if (!m) throw new Error(`ledger report: "${amount}" is no figure formatMinor wrote`);
  const minor = Number(m[2]) * 100 + Number(m[3]);
  return m[1] === "-" ? -minor : minor;
}

export function dayLine(firmId: number, d: DayTotals): Record<string, unknown> {
  return { firm_id: firmId, ...d, other: d.other ?? "0.00" };
}

/** A posting as one line: its parts summed into the day's columns, what no column names in `other`. */
export function postingLine(firmId: number, date: string, p: DayPosting): Record<string, unknown> {
  const line: Record<string, unknown> = {
    firm_id: firmId,
    date,
    posting_id: p.id,
    at: p.at,
    kind: p.kind,
    key: p.key,
    amount: p.amount,
    memo: p.memo ?? "",
  };
  let named = 0;
  for (const name of MOVEMENTS) {
    const sum = DAY_MOVEMENTS[name].reduce((s, k) => s + kurus(p.parts[k] ?? "0.00"), 0);
    named += sum;
    line[name] = formatMinor(sum);
  }
  line.other = formatMinor(kurus(p.amount) - named);
  return line;
}

/** A firm's days from `from` to `to` as CSV; a refusal (an unknown firm, a bad range) as the API's JSON. */
export async function sendDaysCsv(
  reply: FastifyReply,
  ledger: Pick<LedgerService, "firmDays">,
  asked: { firmId: number; from: string; to: string; excel: boolean },
) {
  const days = await ledger.firmDays(asked.firmId, asked.from, asked.to);
  if (!days.ok) return sendRefusal(reply, days);
  const writer = writerOf(asked.excel, DAYS_CSV_COLUMNS, DAYS_AMOUNTS);
  async function* lines() {
    yield writer.start;
    for (const d of days.ok ? days.value : []) yield writer.line(dayLine(asked.firmId, d));
  }
  return sendCsv(reply, `firm-${asked.firmId}-days-${asked.from}-${asked.to}`, asked.excel, lines());
}

/**
 * One day's postings as CSV, every page of them: the first page is read before anything is sent, so
 * a refusal is still the API's JSON; the next ones as the file streams, a page (at most
 * DAY_PAGE.max postings) in memory at a time.
 */
export async function sendDayCsv(
  reply: FastifyReply,
  ledger: Pick<LedgerService, "firmDay">,
  asked: { firmId: number; date: string; excel: boolean },
) {
  const { firmId, date } = asked;
  const first = await ledger.firmDay(firmId, date, { limit: DAY_PAGE.max });
  if (!first.ok) return sendRefusal(reply, first);
  const writer = writerOf(asked.excel, POSTINGS_CSV_COLUMNS, POSTINGS_AMOUNTS);
  async function* lines() {
    yield writer.start;
    let page: Outcome<FirmDayView> = first;
    while (page.ok) {
      yield page.value.postings.map((p) => writer.line(postingLine(firmId, date, p))).join("");
      const after = page.value.next;
      if (after === null) return;
      page = await ledger.firmDay(firmId, date, { after, limit: DAY_PAGE.max });
    }
    // A later page refused (none should be: the firm and the day were read already) breaks the
    // download off, so that a file short of postings never looks whole.
    throw new Error(`ledger day ${date} of firm ${firmId}: a later page was refused`);
  }
  return sendCsv(reply, `firm-${firmId}-day-${date}-postings`, asked.excel, lines());
}
