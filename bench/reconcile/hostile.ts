import { readFileSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";
import { Agent, request } from "undici";
import { STATEMENT_LIMITS } from "../../src/reconciliation/statement-limits.js";
import { depositJson, signedCall } from "../shared/client.js";
import { createKeptStore, startServer } from "../shared/kept-store.js";
import type { StoreKind } from "../shared/payintake.js";
import { STATEMENT_IBAN, statementScene } from "./scene.js";

/**
 * The reconciliation benchmark's `hostile statements` case (issue 45): worst-case statement files
 * of about 200 MB (the upload's limit), each streamed to a running server while merchants deposit
 * and a monitor asks `/healthz`. Per file: whether it was read or refused and how long it took,
 * the server's resident peak above its resident size just before (VmHWM, reset), and the p99 of
 * the deposits and of `/healthz` made meanwhile. Targets: RSS rise ≤ 200 MB, the file's answer
 * within 60 s, a deposit's p99 under 100 ms.
 */
const MB = 1 << 20;
const IBAN = STATEMENT_IBAN;
const SIZE = Number(process.env.RECONCILE_HOSTILE_MB ?? 190) * MB;
/** Merchants depositing while a file is read, together at a steady rate a busy day sees. */
const DEPOSITORS = 4;
const DEPOSITS_PER_SECOND = Number(process.env.RECONCILE_HOSTILE_RATE ?? 100);
/** Deposits made so far: each with its own reference. */
let made = 0;

export interface HostileRun {
  kind: StoreKind;
  shape: string;
  outcome: string;
  seconds: number;
  peakAboveMb: number;
  deposits: number;
  depositP99Ms: number;
  healthP99Ms: number;
}

async function* repeated(head: string, unit: string, bytes: number, tail: string) {
  yield Buffer.from(head);
  const block = Buffer.from(unit.repeat(Math.max(1, Math.floor(65_536 / unit.length))));
  for (let n = 0; n < bytes; n += block.length) yield block;
  yield Buffer.from(tail);
}

/**
 * A balanced camt.053 of the entries' limit, every entry `amount` kuruş from `name`, booked now, each
 * with its own bank reference (`<ref>-<n>`) and description.
 */
async function* entriesAtTheLimit(e: { amount: number; name: string; ref: string }) {
  const at = new Date().toISOString();
  const amount = (e.amount / 100).toFixed(2);
  yield Buffer.from(
    `<Document><BkToCstmrStmt><Stmt><Acct><Id><IBAN>${IBAN}</IBAN></Id></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>`,
  );
  for (let n = 0; n < STATEMENT_LIMITS.entries; ) {
    let block = "";
    for (let k = 0; k < 256 && n < STATEMENT_LIMITS.entries; k++, n++)
      block += `<Ntry><Amt Ccy="TRY">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><DtTm>${at}</DtTm></BookgDt><AcctSvcrRef>${e.ref}-${n}</AcctSvcrRef><NtryDtls><TxDtls><RltdPties><Dbtr><Nm>${e.name}</Nm></Dbtr></RltdPties><RmtInf><Ustrd>ODEME ${n}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`;
    yield Buffer.from(block);
  }
  const closing = ((STATEMENT_LIMITS.entries * e.amount) / 100).toFixed(2);
  yield Buffer.from(
    `<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${closing}</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal></Stmt></BkToCstmrStmt></Document>`,
  );
}

const SHAPES: { shape: string; type: string; file(): AsyncIterable<Buffer> }[] = [
  {
    shape: "2.6 M empty statements",
    type: "application/xml",
    file: () =>
      repeated(
        "<Document><BkToCstmrStmt>",
        `<Stmt><Acct><Id><IBAN>${IBAN}</IBAN></Id></Acct></Stmt>`,
        SIZE,
        "</BkToCstmrStmt></Document>",
      ),
  },
  {
    shape: "one description (Ustrd) of the whole file",
    type: "application/xml",
    file: () =>
      repeated(
        `<Document><BkToCstmrStmt><Stmt><Acct><Id><IBAN>${IBAN}</IBAN></Id></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal><Ntry><Amt Ccy="TRY">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><DtTm>${new Date().toISOString()}</DtTm></BookgDt><NtryDtls><TxDtls><RmtInf><Ustrd>`,
        "ACEFHJKM",
        SIZE,
        "</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>",
      ),
  },
  {
    shape: "entries with every text at its limit (all read and written)",
    type: "application/xml",
    file: () => {
      const at = new Date().toISOString();
      let n = 0;
      return (async function* () {
        yield Buffer.from(
          `<Document><BkToCstmrStmt><Stmt><Acct><Id><IBAN>${IBAN}</IBAN></Id></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>`,
        );
        const text = "ACEFHJKMNPRTWXY34679".repeat(125);
        for (let bytes = 0; bytes < SIZE; ) {
          let block = "";
          for (let k = 0; k < 16; k++, n++)
            block += `<Ntry><Amt Ccy="TRY">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><DtTm>${at}</DtTm></BookgDt><AcctSvcrRef>H-${n}</AcctSvcrRef><NtryDtls><TxDtls><RltdPties><Dbtr><Nm>${text}</Nm></Dbtr></RltdPties><RmtInf><Ustrd>${text}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`;
          bytes += block.length;
          yield Buffer.from(block);
        }
        // Balanced: the closing balance counts every entry.
        yield Buffer.from(
          `<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${n}.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal></Stmt></BkToCstmrStmt></Document>`,
        );
      })();
    },
  },
  {
    shape: `${STATEMENT_LIMITS.entries.toLocaleString("en-US")} entries (the limit) with short texts (all read, matched and written)`,
    type: "application/xml",
    // Neither an amount nor a name any deposit has: each line is compared with every deposit in its
    // reach (those the other cases made) and written unmatched.
    file: () => entriesAtTheLimit({ amount: 100, name: "HASAN KARA", ref: "S" }),
  },
  {
    shape: `${STATEMENT_LIMITS.entries.toLocaleString("en-US")} entries naming the payer and the amount of every deposit made meanwhile`,
    type: "application/xml",
    // Every deposit the merchants make is Ayşe Yılmaz's, of 150.00 (depositJson): each line could be
    // any of the thousands pending, and meets a line's budget of them (matching.ts).
    file: () => entriesAtTheLimit({ amount: 15_000, name: "AYSE YILMAZ", ref: "P" }),
  },
  {
    shape: "300 k levels of nesting inside an entry",
    type: "application/xml",
    file: () => repeated(`<Document><BkToCstmrStmt><Stmt><Ntry>`, "<a>", 900_000, ""),
  },
  {
    shape: "empty elements to the size limit",
    type: "application/xml",
    file: () =>
      repeated(`<Document><BkToCstmrStmt><Stmt>`, "<x/>", SIZE, "</Stmt></BkToCstmrStmt></Document>"),
  },
  {
    shape: "an MT940 narrative of the whole file",
    type: "text/plain",
    file: () => {
      const day = new Date(Date.now() + 3 * 3_600_000).toISOString().slice(2, 10).replaceAll("-", "");
      return repeated(
        [":20:S1", `:25:${IBAN}`, `:60F:C${day}TRY0,00`, `:61:${day}C1,00NTRFX`, ":86:"].join("\n"),
        `${"ACEFHJKMNPRTWXY34679".repeat(3)}\n`,
        SIZE,
        `\n:62F:C${day}TRY1,00\n-`,
      );
    },
  },
];

function memoryKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? Number.NaN);
}

const p99 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.NaN;
};

/** Deposits and health checks, one after another per caller, until `done` says stop. */
async function traffic(url: string, creds: { apiKey: string; secret: string }, done: () => boolean) {
  const deposits: number[] = [];
  const health: number[] = [];
  const depositor = async () => {
    while (!done()) {
      const started = performance.now();
      const r = await signedCall(
        url,
        creds,
        "POST",
        "/paymentapi/v1/deposits",
        depositJson(`h${process.pid}-${made++}`),
      );
      if (r.status !== 200) throw new Error(`deposit answered ${r.status}: ${JSON.stringify(r.json)}`);
      deposits.push(performance.now() - started);
      const next = started + (1000 * DEPOSITORS) / DEPOSITS_PER_SECOND;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    }
  };
  const monitor = async () => {
    while (!done()) {
      const started = performance.now();
      const r = await request(`${url}/healthz`);
      await r.body.dump();
      health.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await Promise.all([...Array.from({ length: DEPOSITORS }, depositor), monitor()]);
  return { deposits, health };
}

export async function hostileRuns(
  kind: StoreKind,
  root: string,
  log: (line: string) => void,
): Promise<HostileRun[]> {
  const vs = await createKeptStore(kind);
  const server = await startServer(vs, root);
  const runs: HostileRun[] = [];
  try {
    const url = server.child.url;
    const { account, firm } = await statementScene(url, vs.adminToken, {
      name: "Hostile Firm",
      webhook_url: "http://127.0.0.1:9/cb",
    });
    const creds = { apiKey: firm.api_key, secret: firm.secret_key };
    const pid = server.child.pid;
    // Warm: the first deposits of a new process pay for its compiling, not for any file.
    let warm = 0;
    await traffic(url, creds, () => ++warm > 400);
    // RECONCILE_HOSTILE_ONLY=nesting: the shapes whose name holds that word.
    const only = process.env.RECONCILE_HOSTILE_ONLY;
    for (const { shape, type, file } of SHAPES.filter((s) => only === undefined || s.shape.includes(only))) {
      const rssBefore = memoryKb(pid, "VmRSS");
      writeFileSync(`/proc/${pid}/clear_refs`, "5");
      let finished = false;
      const load = traffic(url, creds, () => finished);
      const started = performance.now();
      // A connection of its own: a file refused early is answered while its body still streams,
      // and that connection is then closed (the next request must not be sent on it).
      const dispatcher = new Agent({ connections: 1 });
      const res = await request(`${url}/admin/v1/accounts/${account.id}/statements`, {
        dispatcher,
        method: "POST",
        headers: { authorization: `Bearer ${vs.adminToken}`, "content-type": type },
        body: Readable.from(file()),
        headersTimeout: 10 * 60_000,
        bodyTimeout: 10 * 60_000,
      }).catch((err: Error) => ({ statusCode: 0, body: { json: async () => ({ message: err.message }) } }));
      const answer = (await res.body.json()) as { message?: string; lines?: number };
      const seconds = (performance.now() - started) / 1000;
      await dispatcher.destroy();
      finished = true;
      const { deposits, health } = await load;
      const outcome =
        res.statusCode === 200 ? `read (${answer.lines} line)` : `${res.statusCode}: ${answer.message ?? ""}`;
      runs.push({
        kind,
        shape,
        outcome,
        seconds,
        peakAboveMb: (memoryKb(pid, "VmHWM") - rssBefore) / 1024,
        deposits: deposits.length,
        depositP99Ms: p99(deposits),
        healthP99Ms: p99(health),
      });
      log(
        `${kind}: ${shape}: ${outcome} in ${seconds.toFixed(1)} s, RSS +${runs.at(-1)?.peakAboveMb.toFixed(0)} MB, deposit p99 ${runs.at(-1)?.depositP99Ms.toFixed(1)} ms`,
      );
    }
    return runs;
  } finally {
    await server.child.stop();
    await vs.remove();
  }
}

export function hostileTable(runs: HostileRun[]): string[] {
  if (runs.length === 0) return [];
  const ok = (r: HostileRun) =>
    r.peakAboveMb <= 200 && r.seconds <= 60 && r.depositP99Ms < 100 ? "ok" : "**MISSED**";
  return [
    "",
    `Hostile statements: worst-case files of about ${(SIZE / MB).toFixed(0)} MB streamed to the server while ${DEPOSITORS} merchants deposit ${DEPOSITS_PER_SECOND} times a second together and a monitor asks \`/healthz\` every 50 ms (targets: RSS rise ≤ 200 MB, answered within 60 s, deposit p99 < 100 ms):`,
    "",
    "| Store | File | Outcome | Answered in | RSS rise | Deposits meanwhile | Deposit p99 | /healthz p99 | Targets |",
    "|---|---|---|---:|---:|---:|---:|---:|---|",
    ...runs.map(
      (r) =>
        `| ${r.kind} | ${r.shape} | ${r.outcome.slice(0, 70)} | ${r.seconds.toFixed(1)} s | ${r.peakAboveMb.toFixed(0)} MB | ${r.deposits} | ${r.depositP99Ms.toFixed(1)} ms | ${r.healthP99Ms.toFixed(1)} ms | ${ok(r)} |`,
    ),
  ];
}
