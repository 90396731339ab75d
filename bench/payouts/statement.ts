import { createReadStream, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "undici";
import type { StoreKind } from "../shared/payintake.js";
import { adminJson } from "../shared/timed-http.js";
import {
  addAccount,
  loadAverage,
  log,
  makeWithdrawals,
  memoryKb,
  PAYING_IBAN,
  resetPeak,
  startReceiver,
  startScene,
  until,
} from "./scene.js";

/**
 * A camt.053 of STATEMENT_LINES (100,000) entries of which PAYOUTS_STATEMENT (10,000) are the
 * debits of a sent batch, each naming its payment id as `EndToEndId` with the payee's name and IBAN
 * (issue 47: imported and matched in under 60 s). The rest are strangers' credits and bank fees.
 * Timed from the upload's first byte to the answer; then every withdrawal must be approved and its
 * callback reach the merchant's receiver.
 */
export interface StatementRun {
  kind: StoreKind;
  lines: number;
  payouts: number;
  bytes: number;
  fillSeconds: number;
  importSeconds: number;
  peakAboveMb: number;
  answer: Record<string, unknown>;
  pendingLeft: number;
  paidAttempts: number;
  approvedCallbacks: number;
  callbacksSeconds: number;
  load: number;
}

interface Item {
  transaction_id: number;
  payment_id: string;
  amount: string;
  payee_name: string;
  payee_iban: string;
  stage: string;
}

const minor = (a: string) => Math.round(Number(a) * 100);
const money = (m: number) => `${Math.floor(m / 100)}.${String(m % 100).padStart(2, "0")}`;

function entry(amount: string, debit: boolean, at: number, ref: string, tx: string): string {
  return `
   <Ntry>
    <Amt Ccy="TRY">${amount}</Amt><CdtDbtInd>${debit ? "DBIT" : "CRDT"}</CdtDbtInd>
    <BookgDt><DtTm>${new Date(at).toISOString()}</DtTm></BookgDt>
    <AcctSvcrRef>${ref}</AcctSvcrRef>
    <NtryDtls><TxDtls>${tx}</TxDtls></NtryDtls>
   </Ntry>`;
}

/** Every `lines / payouts`-th entry a payout's debit; the others a stranger's credit or, one in ten, a fee. */
export function statementXml(items: Item[], lines: number, start: number): string {
  const every = Math.floor(lines / items.length);
  const entries: string[] = [];
  let moved = 0;
  for (let i = 0; i < lines; i++) {
    const at = start + i;
    const item = i % every === 0 ? items[i / every] : undefined;
    if (item) {
      moved -= minor(item.amount);
      entries.push(
        entry(
          item.amount,
          true,
          at,
          `P-${i}`,
          `<Refs><EndToEndId>${item.payment_id}</EndToEndId></Refs><RltdPties><Cdtr><Nm>${item.payee_name}</Nm></Cdtr><CdtrAcct><Id><IBAN>${item.payee_iban}</IBAN></Id></CdtrAcct></RltdPties><RmtInf><Ustrd>${item.payment_id}</Ustrd></RmtInf>`,
        ),
      );
    } else if (i % 10 === 1) {
      const fee = (i % 900) + 1;
      moved -= fee * 100;
      entries.push(entry(`${fee}.00`, true, at, `X-${i}`, "<RmtInf><Ustrd>EFT MASRAFI</Ustrd></RmtInf>"));
    } else {
      moved += (50_000 + i) * 100;
      entries.push(
        entry(
          `${50_000 + i}.00`,
          false,
          at,
          `X-${i}`,
          `<RltdPties><Dbtr><Nm>YABANCI ${i}</Nm></Dbtr></RltdPties><RmtInf><Ustrd>HAVALE</Ustrd></RmtInf>`,
        ),
      );
    }
  }
  const opening = 100_000_000_000;
  const closing = opening + moved;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt>
 <ElctrncSeqNb>1</ElctrncSeqNb><Acct><Id><IBAN>${PAYING_IBAN}</IBAN></Id></Acct>
 <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${money(opening)}</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>
 <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${money(closing)}</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>${entries.join("")}
</Stmt></BkToCstmrStmt></Document>`;
}

export async function statementRun(
  kind: StoreKind,
  dir: string,
  opts: { lines: number; payouts: number },
): Promise<StatementRun> {
  const receiver = await startReceiver();
  const scene = await startScene(kind, receiver.url);
  try {
    const account = await addAccount(scene);
    log(`${kind}: making ${opts.payouts} withdrawals`);
    const fillSeconds = await makeWithdrawals(scene, opts.payouts, "S");
    const made = await adminJson(scene.url, scene.token, "POST", "/admin/v1/payouts/batches", {
      account: account.id,
      max_count: opts.payouts,
      actor: "bench",
    });
    if (made.payouts !== opts.payouts) throw new Error(`batch: ${JSON.stringify(made)}`);
    await adminJson(
      scene.url,
      scene.token,
      "POST",
      `/admin/v1/payouts/batches/${made.batch}/sent`,
      { actor: "bench" },
      200,
    );
    const shown = await adminJson(scene.url, scene.token, "GET", `/admin/v1/payouts/batches/${made.batch}`);
    const items = shown.items as Item[];
    const file = join(dir, `payout-statement-${kind}.xml`);
    writeFileSync(file, statementXml(items, opts.lines, Date.now() + 5_000));
    const bytes = statSync(file).size;
    await new Promise((r) => setTimeout(r, 2_000));
    const pid = scene.server.child.pid;
    const resting = memoryKb(pid, "VmRSS");
    const load = loadAverage();
    resetPeak(pid);
    log(`${kind}: importing ${opts.lines} lines (${(bytes / 1e6).toFixed(1)} MB)`);
    const started = performance.now();
    const res = await request(`${scene.url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${scene.token}`, "content-type": "application/xml" },
      body: createReadStream(file),
      headersTimeout: 30 * 60_000,
      bodyTimeout: 30 * 60_000,
    });
    const answer = (await res.body.json()) as Record<string, unknown>;
    const importSeconds = (performance.now() - started) / 1000;
    const peak = memoryKb(pid, "VmHWM");
    if (res.statusCode !== 200)
      throw new Error(`import answered ${res.statusCode}: ${JSON.stringify(answer)}`);
    log(`${kind}: ${importSeconds.toFixed(1)} s, ${JSON.stringify({ ...answer, statements: undefined })}`);

    await until(() => receiver.arrived.size >= opts.payouts, 300_000);
    const callbacksSeconds = (performance.now() - started) / 1000;
    const approvedCallbacks = [...receiver.arrived.values()].filter((c) => c.status === "approved").length;
    const after = await adminJson(scene.url, scene.token, "GET", `/admin/v1/payouts/batches/${made.batch}`);
    const pending = await adminJson(
      scene.url,
      scene.token,
      "GET",
      `/admin/v1/transactions?firm=${scene.firm.id}&status=pending&limit=1000`,
    );
    return {
      kind,
      lines: opts.lines,
      payouts: opts.payouts,
      bytes,
      fillSeconds,
      importSeconds,
      peakAboveMb: (peak - resting) / 1024,
      answer,
      pendingLeft: (pending as unknown[]).length,
      paidAttempts: (after.items as Item[]).filter((i) => i.stage === "paid").length,
      approvedCallbacks,
      callbacksSeconds,
      load,
    };
  } finally {
    await scene.close();
    await receiver.close();
  }
}
