/**
 * `payintake payout …`: batches of withdrawals paid by bank file or payout channel, and their
 * settings (docs/payouts.md). Each prints one JSON object, but `payout batch file` without --out,
 * which prints the file itself.
 */
import { writeFileSync } from "node:fs";
import type { FileNotice } from "../payouts/file-download.js";
import { FileBody } from "./admin-client.js";
import { actor, bool, defined, type Handler, id, int, need, str, UsageError } from "./command-args.js";

/** A command's answer that is a file's bytes, written as they are instead of as JSON. */
export class RawOutput {
  constructor(
    readonly bytes: Buffer,
    readonly notices: FileNotice[],
  ) {}
}

/** An amount, or `none` for no such rule. */
function rule(flags: Record<string, string | true>, name: string): string | undefined {
  const v = str(flags, name);
  if (v === undefined || v === "none" || /^\d+(\.\d{1,2})?$/.test(v)) return v;
  throw new UsageError(`--${name} must be an amount such as 100000.00, or none (got "${v}")`);
}

function scopeQuery(flags: Record<string, string | true>): string {
  const firm = int(flags, "firm");
  const account = int(flags, "account");
  if (firm !== undefined && account !== undefined) throw new UsageError("give --firm or --account, not both");
  if (firm !== undefined) return `?firm=${firm}`;
  return account !== undefined ? `?account=${account}` : "";
}

export const PAYOUT_COMMANDS: Record<string, Handler> = {
  "payout waiting": (c, _p, f) => {
    const q = new URLSearchParams(
      defined({ firm: str(f, "firm"), account: str(f, "account"), limit: str(f, "limit") }) as Record<
        string,
        string
      >,
    );
    return c.call("GET", `/admin/v1/payouts/waiting${q.size ? `?${q}` : ""}`);
  },
  "payout flagged": (c, _p, f) => {
    const limit = str(f, "limit");
    return c.call("GET", `/admin/v1/payouts/flagged${limit ? `?limit=${encodeURIComponent(limit)}` : ""}`);
  },
  "payout flag clear": (c, p, f) =>
    c.call(
      "POST",
      `/admin/v1/payouts/attempts/${id(p)}/clear-flag`,
      defined({ flag: need(f, "flag"), note: str(f, "note"), actor: actor(f) }),
    ),
  "payout batch create": async (c, _p, f) => {
    const r = await c.call(
      "POST",
      "/admin/v1/payouts/batches",
      defined({
        account: int(f, "account") ?? Number(need(f, "account")),
        firm: int(f, "firm"),
        max_count: int(f, "max-count"),
        actor: actor(f),
      }),
    );
    return r.status === 201 ? { status: 200, json: r.json } : r;
  },
  "payout batch list": (c, _p, f) => {
    const stage = str(f, "stage");
    return c.call("GET", `/admin/v1/payouts/batches${stage ? `?stage=${encodeURIComponent(stage)}` : ""}`);
  },
  "payout batch show": (c, p) => c.call("GET", `/admin/v1/payouts/batches/${id(p)}`),
  "payout batch sent": (c, p, f) =>
    c.call("POST", `/admin/v1/payouts/batches/${id(p)}/sent`, { actor: actor(f) }),
  "payout batch release": (c, p, f) =>
    c.call("POST", `/admin/v1/payouts/batches/${id(p)}/release`, { actor: actor(f) }),
  "payout batch cancel": (c, p, f) =>
    c.call(
      "POST",
      `/admin/v1/payouts/batches/${id(p)}/cancel`,
      defined({ actor: actor(f), note: str(f, "note") }),
    ),
  "payout batch file": async (c, p, f) => {
    const batch = id(p);
    const format = need(f, "format");
    const out = str(f, "out");
    const q = new URLSearchParams({ format, actor: actor(f) });
    const r = await c.download(`/admin/v1/payouts/batches/${batch}/file?${q}`);
    if (r.status >= 400) return { status: r.status, json: r.json };
    if (out === undefined) return { status: 200, json: new RawOutput(r.bytes, r.notices) };
    writeFileSync(out, r.bytes, { mode: 0o600 });
    return { status: 200, json: { batch, format, file: out, bytes: r.bytes.length, notices: r.notices } };
  },
  "payout template list": (c) => c.call("GET", "/admin/v1/payouts/templates"),
  "payout template add": async (c, _p, f) => {
    const file = new FileBody(need(f, "file"));
    const r = await c.call("POST", `/admin/v1/payouts/templates?actor=${encodeURIComponent(actor(f))}`, file);
    return r.status === 201 ? { status: 200, json: r.json } : r;
  },
  "payout settings": (c, _p, f) => {
    const scope = scopeQuery(f);
    const change = defined({
      payouts: bool(f, "payouts"),
      two_person_batch_above: rule(f, "two-person-batch-above"),
      two_person_payout_above: rule(f, "two-person-payout-above"),
      two_person_day_above: rule(f, "two-person-day-above"),
      channel_final_approves: bool(f, "channel-final-approves"),
      fast_limit: rule(f, "fast-limit"),
      balance_guard: bool(f, "balance-guard"),
    });
    if (Object.keys(change).length === 0) return c.call("GET", `/admin/v1/payouts/settings${scope}`);
    const where = Object.fromEntries(new URLSearchParams(scope.slice(1)));
    const target = defined({
      firm: where.firm === undefined ? undefined : Number(where.firm),
      account: where.account === undefined ? undefined : Number(where.account),
    });
    return c.call("PATCH", "/admin/v1/payouts/settings", { ...target, ...change, actor: actor(f) });
  },
};

export const PAYOUT_SYNTAX: Record<keyof typeof PAYOUT_COMMANDS, string> = {
  "payout waiting": "[--firm ID] [--account ID] [--limit N]",
  "payout flagged": "[--limit N]",
  "payout flag clear":
    "ID --flag overdue|channel_unknown|channel_mismatch|double_payment|returned_after_paid [--note TEXT] [--operator NAME]",
  "payout batch create": "--account ID [--firm ID] [--max-count N] [--operator NAME]",
  "payout batch list": "[--stage second_approval|batched|sent|closed|cancelled]",
  "payout batch show": "ID",
  "payout batch sent": "ID [--operator NAME]",
  "payout batch release": "ID [--operator NAME]",
  "payout batch cancel": "ID [--note TEXT] [--operator NAME]",
  "payout batch file": "ID --format pain.001.001.09|pain.001.001.03|TEMPLATE [--out FILE] [--operator NAME]",
  "payout template list": "",
  "payout template add": "--file TEMPLATE.json [--operator NAME]",
  "payout settings":
    "[--firm ID | --account ID] [--payouts true|false] [--two-person-batch-above AMOUNT|none] [--two-person-payout-above AMOUNT|none] [--two-person-day-above AMOUNT|none] [--channel-final-approves true|false] [--fast-limit AMOUNT] [--balance-guard true|false]",
};
