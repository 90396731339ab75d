/** `payintake ledger …`: what the service owes each firm (docs/ledger.md, "Reports"). */
import type { AdminClient } from "./admin-client.js";
import { actor, bool, type Handler, int, need, str, UsageError } from "./command-args.js";

const LEDGER_READS: Record<string, Handler> = {
  "ledger balance": (c, _p, f) => {
    const firm = int(f, "firm");
    const account = int(f, "account");
    const company = bool(f, "company") === true;
    if ([firm !== undefined, account !== undefined, company].filter(Boolean).length !== 1)
      throw new UsageError("name one of --firm ID, --account ID or --company");
    const at = str(f, "at");
    const query = at === undefined ? "" : `?at=${encodeURIComponent(at)}`;
    if (company) return c.call("GET", `/admin/v1/ledger/company${query}`);
    const whose = firm === undefined ? `accounts/${account}` : `firms/${firm}`;
    return c.call("GET", `/admin/v1/ledger/${whose}/balance${query}`);
  },
  "ledger check": (c, _p, f) => {
    const account = int(f, "account") ?? Number(need(f, "account"));
    const at = str(f, "at");
    return c.call(
      "GET",
      `/admin/v1/ledger/accounts/${account}/check${at === undefined ? "" : `?at=${encodeURIComponent(at)}`}`,
    );
  },
  "ledger day": (c, _p, f) => {
    const firm = int(f, "firm") ?? Number(need(f, "firm"));
    const date = need(f, "date");
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date))
      throw new UsageError(`--date must be a day, YYYY-MM-DD (got "${date}")`);
    return wholeDay(c, `/admin/v1/ledger/firms/${firm}/days/${date}`);
  },
};

const LEDGER_POSTINGS: Record<string, Handler> = {
  "ledger adjust": (c, _p, f) =>
    c.call("POST", `/admin/v1/ledger/firms/${firmId(f)}/adjustments`, {
      amount: need(f, "amount"),
      reason: need(f, "reason"),
      ...(str(f, "key") === undefined ? {} : { key: str(f, "key") }),
      actor: actor(f),
    }),
  "ledger settle": (c, _p, f) =>
    c.call("POST", `/admin/v1/ledger/firms/${firmId(f)}/settlements`, {
      amount: need(f, "amount"),
      account_id: int(f, "account") ?? Number(need(f, "account")),
      reference: need(f, "reference"),
      actor: actor(f),
    }),
  "ledger opening": (c, _p, f) => {
    const firm = int(f, "firm");
    const account = int(f, "account");
    if ((firm === undefined) === (account === undefined))
      throw new UsageError("name one of --firm ID or --account ID");
    return c.call("POST", "/admin/v1/ledger/openings", {
      ...(firm === undefined ? { account_id: account } : { firm_id: firm }),
      balance: need(f, "balance"),
      at: need(f, "at"),
      ...(str(f, "memo") === undefined ? {} : { memo: str(f, "memo") }),
      actor: actor(f),
    });
  },
  "ledger opening-proposal": (c) => c.call("GET", "/admin/v1/ledger/openings/proposal"),
};
export const LEDGER_COMMANDS: Record<string, Handler> = { ...LEDGER_READS, ...LEDGER_POSTINGS };

const firmId = (f: Parameters<Handler>[2]) => int(f, "firm") ?? Number(need(f, "firm"));

export const LEDGER_SYNTAX: Record<keyof typeof LEDGER_COMMANDS, string> = {
  "ledger balance": "--firm ID [--at TIME] | --account ID [--at TIME] | --company [--at TIME]",
  "ledger check": "--account ID [--at TIME]",
  "ledger day": "--firm ID --date YYYY-MM-DD",
  "ledger adjust": "--firm ID --amount AMOUNT --reason TEXT [--key KEY] [--operator NAME]",
  "ledger settle": "--firm ID --account ID --amount AMOUNT --reference REF [--operator NAME]",
  "ledger opening":
    "--firm ID --balance AMOUNT --at TIME [--memo TEXT] [--operator NAME] | --account ID --balance AMOUNT --at TIME [--memo TEXT] [--operator NAME]",
  "ledger opening-proposal": "",
};

/** The day's report with every posting: its pages read one after another into one object. */
async function wholeDay(c: AdminClient, path: string): Promise<{ status: number; json: unknown }> {
  const first = await c.call("GET", path);
  if (first.status !== 200) return first;
  const day = first.json as { postings?: unknown[]; next?: string | null };
  const postings = [...(day.postings ?? [])];
  for (let next = day.next ?? null; next !== null; ) {
    const page = await c.call("GET", `${path}?after=${encodeURIComponent(next)}`);
    if (page.status !== 200) return page;
    const more = page.json as { postings?: unknown[]; next?: string | null };
    postings.push(...(more.postings ?? []));
    next = more.next ?? null;
  }
  const { next: _last, ...figures } = day;
  return { status: 200, json: { ...figures, postings } };
}
