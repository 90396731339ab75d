import type { ChannelSimulator } from "../../../src/routing/channels/simulator.js";
import type { World } from "./world.js";

/**
 * The bank in the payouts chaos run: it pays what was really sent and writes the statements that
 * show it. A file account's batch is executed once the database says it was marked sent (the
 * operator uploaded it): each payout paid, or sent back by the payee's bank (a return credit naming
 * its payment id, the money never left), some batches booked as one debit (of the sum, or listing
 * the EndToEndIds). A channel account's statement shows what its simulator paid and returned. Each
 * statement (camt.053, a bank reference per line) is imported through both api instances at once
 * until one of them answers 200; earlier statements are imported again now and then.
 *
 * The bank keeps the money's own ledger: `out` is, per payment id, 1 when its money left and stayed
 * out. A withdrawal whose payment ids add up to more than 1 was paid twice, whatever the database says.
 */
interface Line {
  amountMinor: number;
  credit: boolean;
  e2e?: string;
  e2eList?: string[];
  text?: string;
  returnReason?: string;
  ref: string;
}

interface Statement {
  accountId: number;
  seq: number;
  xml: string;
  imported: boolean;
  tries: number;
}

export interface BankFigures {
  batchesExecuted: number;
  paid: number;
  returned: number;
  batchBooked: number;
  listedBooked: number;
  statements: number;
  imports: number;
  importsAnswered200: number;
  importsBusy: number;
  reimports: number;
  linesWritten: number;
}

const money = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;
const minorOf = (amount: string) => Math.round(Number(amount) * 100);

function camt(iban: string, seq: number, lines: Line[], opening: number): string {
  const moved = lines.reduce((s, l) => s + (l.credit ? 1 : -1) * l.amountMinor, 0);
  const at = new Date(Date.now() - 1_000).toISOString();
  const tx = (l: Line, e2e?: string) =>
    `<TxDtls>${e2e ? `<Refs><EndToEndId>${e2e}</EndToEndId></Refs>` : ""}${
      l.text ? `<RmtInf><Ustrd>${l.text}</Ustrd></RmtInf>` : ""
    }${l.returnReason ? `<RtrInf><Rsn><Cd>${l.returnReason}</Cd></Rsn></RtrInf>` : ""}</TxDtls>`;
  const entry = (l: Line) => `
   <Ntry><Amt Ccy="TRY">${money(l.amountMinor)}</Amt><CdtDbtInd>${l.credit ? "CRDT" : "DBIT"}</CdtDbtInd>
    <BookgDt><DtTm>${at}</DtTm></BookgDt><AcctSvcrRef>${l.ref}</AcctSvcrRef>
    <NtryDtls>${l.e2eList ? l.e2eList.map((id) => tx({ ...l, text: undefined }, id)).join("") : tx(l, l.e2e)}</NtryDtls></Ntry>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt>
 <ElctrncSeqNb>${seq}</ElctrncSeqNb><Acct><Id><IBAN>${iban}</IBAN></Id></Acct>
 <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${money(opening)}</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>
 <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${money(opening + moved)}</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>${lines.map(entry).join("")}
</Stmt></BkToCstmrStmt></Document>`;
}

export class Bank {
  /** payment id → 1 when its money left and stayed out, 0 when it came back or never left. */
  readonly out = new Map<string, number>();
  readonly figures: BankFigures = {
    batchesExecuted: 0,
    paid: 0,
    returned: 0,
    batchBooked: 0,
    listedBooked: 0,
    statements: 0,
    imports: 0,
    importsAnswered200: 0,
    importsBusy: 0,
    reimports: 0,
    linesWritten: 0,
  };
  /** Share of a file batch's payouts the payee's bank sends back (0 once the run settles). */
  returnShare = 0.1;
  private readonly executed = new Set<number>();
  private readonly booked = new Map<string, "debit" | "returned">();
  private readonly queued = new Map<number, Line[]>();
  private readonly statements: Statement[] = [];
  private readonly balance = new Map<number, number>();
  private seq = 0;
  private refs = 0;

  constructor(
    private readonly world: World,
    private readonly random: () => number,
  ) {}

  private queue(accountId: number, line: Omit<Line, "ref">) {
    const list = this.queued.get(accountId) ?? [];
    list.push({ ...line, ref: `CHAOS-${accountId}-${++this.refs}` });
    this.queued.set(accountId, list);
  }

  /** Executes the file account's batches marked sent since the last look. */
  async executeFileBatches(): Promise<void> {
    const file = this.world.accounts.file;
    const listed = await this.world.call("read", "GET", "/admin/v1/payouts/batches?stage=sent&limit=1000");
    if (listed.status !== 200) return;
    for (const b of listed.json.batches as { batch: number; account_id: number }[]) {
      if (b.account_id !== file.id || this.executed.has(b.batch)) continue;
      const shown = await this.world.call("read", "GET", `/admin/v1/payouts/batches/${b.batch}`);
      if (shown.status !== 200) return;
      this.executed.add(b.batch);
      this.figures.batchesExecuted++;
      this.executeBatch(file.id, shown.json.items);
    }
  }

  private executeBatch(accountId: number, items: { payment_id: string; amount: string; stage: string }[]) {
    const sent = items.filter((i) => i.stage === "sent");
    const fates = sent.map((i) => ({ i, returned: this.random() < this.returnShare }));
    const paid = fates.filter((f) => !f.returned).map((f) => f.i);
    for (const { i, returned } of fates) {
      this.out.set(i.payment_id, returned ? 0 : 1);
      if (!returned) continue;
      this.figures.returned++;
      const line = { amountMinor: minorOf(i.amount), credit: true, e2e: i.payment_id, returnReason: "AC04" };
      this.queue(accountId, line);
    }
    this.figures.paid += paid.length;
    const whole = paid.length >= 2 && paid.length === sent.length;
    const style = whole ? this.random() : 1;
    const sum = paid.reduce((s, i) => s + minorOf(i.amount), 0);
    if (style < 0.2) {
      this.figures.batchBooked++;
      this.queue(accountId, { amountMinor: sum, credit: false, text: "TOPLU ODEME" });
    } else if (style < 0.4) {
      this.figures.listedBooked++;
      this.queue(accountId, { amountMinor: sum, credit: false, e2eList: paid.map((i) => i.payment_id) });
    } else {
      for (const i of paid)
        this.queue(accountId, { amountMinor: minorOf(i.amount), credit: false, e2e: i.payment_id });
    }
  }

  /** A channel account's statement: what its simulator paid, and returned after. */
  bookChannel(accountId: number, sim: ChannelSimulator): void {
    for (const [paymentId, p] of sim.payouts) {
      const seen = this.booked.get(paymentId);
      if (p.paid === 1 && seen === undefined) {
        this.booked.set(paymentId, "debit");
        this.queue(accountId, { amountMinor: p.amountMinor, credit: false, e2e: paymentId });
      }
      if (p.status === "returned" && this.booked.get(paymentId) === "debit") {
        this.booked.set(paymentId, "returned");
        this.queue(accountId, {
          amountMinor: p.amountMinor,
          credit: true,
          e2e: paymentId,
          returnReason: "AC04",
        });
      }
    }
  }

  /** The simulators' part of the ledger, read at the end: paid and not returned. */
  ledgerFromSimulators(): void {
    for (const sim of [this.world.accounts.channelApproves.sim, this.world.accounts.channelStatement.sim])
      for (const [paymentId, p] of sim.payouts)
        this.out.set(paymentId, p.paid === 1 && p.status !== "returned" ? 1 : 0);
  }

  /** Writes a statement of what is queued for each account; imports every statement not yet in. */
  async importStatements(): Promise<void> {
    const accounts = this.world.accounts;
    for (const a of [accounts.file, accounts.channelApproves, accounts.channelStatement]) {
      const lines = this.queued.get(a.id) ?? [];
      if (lines.length === 0) continue;
      this.queued.set(a.id, []);
      const opening = this.balance.get(a.id) ?? 500_000_000;
      this.balance.set(a.id, opening + lines.reduce((s, l) => s + (l.credit ? 1 : -1) * l.amountMinor, 0));
      const seq = ++this.seq;
      this.statements.push({
        accountId: a.id,
        seq,
        xml: camt(a.iban, seq, lines, opening),
        imported: false,
        tries: 0,
      });
      this.figures.statements++;
    }
    const open = this.statements.filter((s) => !s.imported);
    const again = this.statements.filter((s) => s.imported);
    const extra =
      again.length > 0 && this.random() < 0.2
        ? [again[Math.floor(this.random() * again.length)] as Statement]
        : [];
    for (const s of [...open, ...extra]) await this.importTwice(s, extra.includes(s));
  }

  /** The same statement through both api instances at once. */
  private async importTwice(s: Statement, reimport: boolean): Promise<void> {
    if (reimport) this.figures.reimports++;
    s.tries++;
    const one = async (slot: "api-0" | "api-1") => {
      this.figures.imports++;
      const res = await this.world.call("import", "POST", `/admin/v1/accounts/${s.accountId}/statements`, {
        raw: s.xml,
        contentType: "application/xml",
        slot,
      });
      if (res.status === 503) this.figures.importsBusy++;
      if (res.status !== 200) return;
      this.figures.importsAnswered200++;
      this.figures.linesWritten += (res.json.lines ?? 0) - (res.json.duplicates ?? 0);
      s.imported = true;
    };
    await Promise.all([one("api-0"), one("api-1")]);
  }

  /** Nothing queued and every statement imported. */
  get idle(): boolean {
    return [...this.queued.values()].every((l) => l.length === 0) && this.statements.every((s) => s.imported);
  }
}
