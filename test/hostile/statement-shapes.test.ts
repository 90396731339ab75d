import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StatementError } from "../../src/reconciliation/amounts.js";
import { importStatement, type ReconcileDeps } from "../../src/reconciliation/import.js";
import { type DepositCandidate, matchLine } from "../../src/reconciliation/matching.js";
import type { StatementLine } from "../../src/reconciliation/statement.js";
import { readStatementFile, type StatementTally } from "../../src/reconciliation/statement-file.js";
import { CUT_MARK, STATEMENT_LIMITS } from "../../src/reconciliation/statement-limits.js";
import { openStore, type Store } from "../../src/store/engine/open.js";
import { createRepositories } from "../../src/store/index.js";
import { storeEnv } from "../support/harness.js";
import { insertAccount } from "../support/rows.js";
import { storedPaymentCodes } from "../support/stored.js";

/**
 * Statement files of hostile shapes (issue 45), read as the server reads them: whatever a file
 * holds, the reader keeps what it needs and no more, refuses with a StatementError (never another
 * fault), and a statement that does not balance is flagged so that it approves nothing.
 */
const IBAN = "TR330006100519786457841326";
const NOW = Date.parse("2026-12-05T12:00:00+03:00");
const MB = 1 << 20;
const LAYOUT = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u0085\u2028\u2029]/u;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as (options?: { type: "minor" | "major" }) => void;

/**
 * `head`, then `unit` repeated to about `bytes`, then `tail`, in 64 KB pieces of bytes as a socket
 * gives them: each piece its own bytes, so that each is decoded into a string of its own (pieces of
 * one shared string would cost a reader that kept them almost nothing, and the budget would not see
 * it).
 */
async function* stream(head: string, unit: string, bytes: number, tail: string) {
  const encoder = new TextEncoder();
  yield encoder.encode(head);
  const block = unit.repeat(Math.max(1, Math.floor(65_536 / unit.length)));
  for (let n = 0; n < bytes; n += block.length) yield encoder.encode(block);
  yield encoder.encode(tail);
}

async function* once(text: string) {
  yield text;
}

const camtEntry = (inner: string) =>
  `<Ntry><Amt Ccy="TRY">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-12-01</Dt></BookgDt>${inner}</Ntry>`;
const camtStmt = (entries: string, closing = "10.00") =>
  `<Stmt><Acct><Id><IBAN>${IBAN}</IBAN></Id></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${closing}</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>${entries}</Stmt>`;
const camt = (stmts: string) => `<Document><BkToCstmrStmt>${stmts}</BkToCstmrStmt></Document>`;
const mt940 = (body: string[]) =>
  [":20:S1", `:25:${IBAN}`, ":28C:7", ":60F:C261201TRY0,00", ...body, "-"].join("\r\n");

/** The heap's growth while a file is read, over its size after a full collection before it. */
async function heapGrowth(
  chunks: AsyncIterable<string | Uint8Array>,
): Promise<{ grew: number; outcome: string }> {
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  // Sampled after a young collection every 512 KB or so: what the reader holds, not the garbage of
  // chunks already read (as large as the young generation, which differs between Node versions).
  let n = 0;
  async function* watched() {
    for await (const c of chunks) {
      if (++n % 8 === 0) {
        gc({ type: "minor" });
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
      yield c;
    }
  }
  let outcome = "read";
  try {
    await readStatementFile(watched(), {}, { now: NOW });
  } catch (err) {
    if (!(err instanceof StatementError)) throw err;
    outcome = err.message;
  }
  return { grew: peak - base, outcome };
}

describe("statement files of hostile shapes", () => {
  // Each file is larger than the budget asserted: a reader that kept it would exceed it.
  const BUDGET = 48 * MB;
  it.each([
    [
      "one description of 96 MB",
      () =>
        stream(
          `<Document><BkToCstmrStmt>${camtStmt("").replace("</Stmt>", "")}${camtEntry("").replace("</Ntry>", "")}<NtryDtls><TxDtls><RmtInf><Ustrd>`,
          "ACEFHJKM",
          96 * MB,
          "</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>",
        ),
      /^read$/,
    ],
    [
      "a narrative of 96 MB in MT940 lines",
      () =>
        stream(
          [":20:S1", `:25:${IBAN}`, ":60F:C261201TRY0,00", ":61:261201C10,00NTRFX", ":86:"].join("\n"),
          `${"ACEFHJKMNPRTWXY34679".repeat(3)}\n`,
          96 * MB,
          "\n:62F:C261201TRY10,00\n-",
        ),
      /^read$/,
    ],
    [
      "millions of empty statements",
      () =>
        stream(
          "<Document><BkToCstmrStmt>",
          `<Stmt><Acct><Id><IBAN>${IBAN}</IBAN></Id></Acct></Stmt>`,
          96 * MB,
          "</BkToCstmrStmt></Document>",
        ),
      /more than 1000 statements/,
    ],
    [
      "nesting inside an entry",
      () => stream(`<Document><BkToCstmrStmt><Stmt><Ntry>`, "<a>", 8 * MB, ""),
      /nested deeper than 40/,
    ],
    [
      "a tag of a million attributes",
      () => {
        let i = 0;
        return (async function* () {
          yield "<Document><BkToCstmrStmt><Stmt ";
          for (let n = 0; n < 8 * MB; n += 40_000)
            yield Array.from({ length: 4_000 }, () => ` a${i++}="1"`).join("");
          yield "></Stmt></BkToCstmrStmt></Document>";
        })();
      },
      /more than 16 attributes/,
    ],
    [
      "an MT940 line without an end",
      () => stream(":20:S1\n:86:", "A", 96 * MB, ""),
      /longer than 2000 characters/,
    ],
  ])("%s: read or refused within the memory budget", async (_what, file, outcome) => {
    const { grew, outcome: got } = await heapGrowth(file());
    expect(got).toMatch(outcome);
    expect(grew).toBeLessThan(BUDGET);
  });

  it("a long description or name is cut with a visible mark; the payment code at its start still reads", async () => {
    const long = `ACE47KMX ${"yatırım ".repeat(2_000)}`;
    const file = camt(
      camtStmt(
        camtEntry(
          `<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>${"AYSE ".repeat(100)}</Nm></Dbtr></RltdPties><RmtInf><Ustrd>${long}</Ustrd></RmtInf></TxDtls></NtryDtls>`,
        ),
      ),
    );
    const lines: StatementLine[] = [];
    await readStatementFile(once(file), { line: (l) => void lines.push(l) }, { now: NOW });
    const [line] = lines;
    expect(line?.description).toHaveLength(STATEMENT_LIMITS.description);
    expect(line?.description.endsWith(CUT_MARK)).toBe(true);
    expect(line?.description.startsWith("ACE47KMX yatırım")).toBe(true);
    expect(line?.senderName?.length).toBeLessThanOrEqual(STATEMENT_LIMITS.name);
    expect(line?.senderName?.endsWith(CUT_MARK)).toBe(true);
  });

  it("layout and direction marks are dropped, line separators become spaces, a NUL refuses", async () => {
    const lines: StatementLine[] = [];
    const named = (name: string, text: string) =>
      camt(
        camtStmt(
          camtEntry(
            `<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>${name}</Nm></Dbtr></RltdPties><RmtInf><Ustrd>${text}</Ustrd></RmtInf></TxDtls></NtryDtls>`,
          ),
        ),
      );
    await readStatementFile(
      once(named("KEMAL &#x202E;LANUS", "ODEME\u2028KOD")),
      { line: (l) => void lines.push(l) },
      { now: NOW },
    );
    expect([lines[0]?.senderName, lines[0]?.description]).toEqual(["KEMAL LANUS", "ODEME KOD"]);
    const narrative: StatementLine[] = [];
    await readStatementFile(
      once(
        mt940([
          ":61:261201C10,00NTRFX",
          ":86:FAST GELEN AHMET\u202e YILMAZ\u2028ACIKLAMA X",
          ":62F:C261201TRY10,00",
        ]),
      ),
      { line: (l) => void narrative.push(l) },
      { now: NOW },
    );
    expect(narrative[0]?.description).toBe("FAST GELEN AHMET YILMAZ ACIKLAMA X");
    await expect(readStatementFile(once(named("A\u0000B", "X")), {}, { now: NOW })).rejects.toThrow(
      /control characters/,
    );
  });

  it.each([
    [
      "an impossible day",
      camt(camtStmt(camtEntry("").replace("2026-12-01", "2026-02-30"))),
      /"2026-02-30" is not a date/,
    ],
    [
      "an impossible MT940 day",
      mt940([":61:260230C10,00NTRFX", ":86:X", ":62F:C261201TRY10,00"]),
      /"260230" is no date/,
    ],
    [
      "a booking more than 400 days ago",
      camt(camtStmt(camtEntry("").replace("2026-12-01", "2025-01-01"))),
      /more than 400 days ago/,
    ],
    [
      "a booking in the year 2000 (docs/reconciliation.md, Formats)",
      camt(camtStmt(camtEntry("").replace("2026-12-01", "2000-01-01"))),
      /more than 400 days ago/,
    ],
    [
      "a booking in the year 2100",
      camt(camtStmt(camtEntry("").replace("2026-12-01", "2100-01-01"))),
      /in the future/,
    ],
    [
      "an MT940 booking in 00, the year 2000",
      mt940([":61:000101C10,00NTRFX", ":86:X", ":62F:C261201TRY10,00"]),
      /more than 400 days ago/,
    ],
    [
      "an MT940 booking in 99, the year 2099",
      mt940([":61:991231C10,00NTRFX", ":86:X", ":62F:C261201TRY10,00"]),
      /in the future/,
    ],
    [
      "a booking in the future",
      camt(camtStmt(camtEntry("").replace("2026-12-01", "2026-12-09"))),
      /in the future/,
    ],
    [
      "an entry outside its statement's period",
      camt(
        camtStmt(camtEntry(""))
          .replace(
            "<Acct>",
            "<FrToDt><FrDtTm>2026-11-30T00:00:00+03:00</FrDtTm><ToDtTm>2026-11-30T23:59:59+03:00</ToDtTm></FrToDt><Acct>",
          )
          .replace("2026-12-01", "2026-10-01"),
      ),
      /more than 7 days before the statement's period/,
    ],
    ["a zero amount", camt(camtStmt(camtEntry("").replace(">10.00<", ">0.00<"), "0.00")), /an entry of zero/],
    ["a second amount", camt(camtStmt(camtEntry('<Amt Ccy="TRY">5000.00</Amt>'))), /two amounts/],
    ["a second root element", `${camt(camtStmt(camtEntry("")))}<Document></Document>`, /second root element/],
    [
      "a reversal indicator that is no boolean",
      camt(camtStmt(camtEntry("<RvslInd>yes</RvslInd>"))),
      /neither true nor false/,
    ],
    [
      "a bank reference of 65 characters",
      camt(camtStmt(camtEntry(`<AcctSvcrRef>${"R".repeat(65)}</AcctSvcrRef>`))),
      /longer than 64/,
    ],
  ])("%s is refused", async (_what, file, why) => {
    await expect(readStatementFile(once(file), {}, { now: NOW })).rejects.toThrow(why);
  });

  it("RvslInd 1 is a reversal (xs:boolean), 0 is not", async () => {
    const lines: StatementLine[] = [];
    for (const v of ["1", "true", "0", "false"])
      await readStatementFile(
        once(camt(camtStmt(camtEntry(`<RvslInd>${v}</RvslInd>`)))),
        { line: (l) => void lines.push(l) },
        { now: NOW },
      );
    expect(lines.map((l) => l.reversal)).toEqual([true, true, false, false]);
  });

  it("MT940: an entry written inside a narrative breaks the balance; other tags and a lone '-' there are text", async () => {
    const tallies: StatementTally[] = [];
    const lines: StatementLine[] = [];
    const file = mt940([
      ":61:261201C10,00NTRFX//REF1",
      ":86:ODEME",
      ":61:261201C5000,00NTRFNONREF",
      ":86:ACE47KMX",
      ":62F:C261201TRY10,00",
    ]);
    const read = await readStatementFile(
      once(file),
      { line: (l) => void lines.push(l), statement: (t) => void tallies.push(t) },
      { now: NOW },
    );
    expect(read.statements[0]?.unbalanced?.message).toMatch(/do not add up.*a difference of -500000/);

    const texts = mt940([
      ":61:261201C10,00NTRFX//REF1",
      ":86:GONDEREN AYSE KAYA",
      ":25:TR120001000000000000000001",
      ":20:NOT A NEW MESSAGE",
      "-",
      ":61:NOT AN ENTRY",
      ":62F:C261201TRY10,00",
    ]);
    const mixed: StatementLine[] = [];
    const got = await readStatementFile(once(texts), { line: (l) => void mixed.push(l) }, { now: NOW });
    expect(got.statements).toHaveLength(1);
    expect(got.statements[0]?.header.accountIban).toBe(IBAN);
    expect(got.statements[0]?.unbalanced).toBeNull();
    expect(mixed[0]?.description).toBe(
      "GONDEREN AYSE KAYA :25:TR120001000000000000000001 :20:NOT A NEW MESSAGE - :61:NOT AN ENTRY",
    );
  });

  it("MT940: a lone '-' before the next message or the file's end ends the message", async () => {
    const two = `${mt940([":61:261201C10,00NTRFX", ":86:A", ":62F:C261201TRY10,00"])}\r\n${mt940([":61:261201C10,00NTRFX", ":86:B", ":62F:C261201TRY10,00"])}`;
    const got = await readStatementFile(once(two), {}, { now: NOW });
    expect(got.statements.map((s) => [s.lines, s.unbalanced])).toEqual([
      [1, null],
      [1, null],
    ]);
  });
});

/** A text a bank (or a payer through it) could write: short, long, with marks and controls. */
const bankText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom("A", "Ç", " ", "\u202E", "\u2028", "\u200F", "&amp;", "4", "X"),
    maxLength: 200,
  }),
  fc.nat({ max: 3_000 }).map((n) => "ACEFHJKM".repeat(n)),
);
const xmlText = (t: string) =>
  t
    .replace(/&(?!amp;)/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
const entryShape = fc.record({
  minor: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10_000_000 })),
  debit: fc.boolean(),
  day: fc.constantFrom("2026-12-01", "2026-11-30", "2026-02-30", "2025-01-01", "2027-01-01", "0001-01-01"),
  name: bankText,
  description: bankText,
  nesting: fc.nat({ max: 60 }),
  reversal: fc.constantFrom("", "<RvslInd>1</RvslInd>", "<RvslInd>false</RvslInd>", "<RvslInd>x</RvslInd>"),
});
const statementShape = fc.record({
  entries: fc.array(entryShape, { maxLength: 5 }),
  closingOff: fc.constantFrom(0, 0, 1, -500_000),
});
const dec = (m: number) => `${Math.floor(Math.abs(m) / 100)}.${String(Math.abs(m) % 100).padStart(2, "0")}`;

type StatementShape = typeof statementShape extends fc.Arbitrary<infer T> ? T : never;

/** `ref`: each entry gets a bank reference of its own beginning with it. */
function camtOf(
  statements: StatementShape[],
  ref?: string,
): {
  file: string;
  expected: { moved: number; closing: number }[];
} {
  const expected: { moved: number; closing: number }[] = [];
  const body = statements
    .map((s) => {
      const moved = s.entries.reduce((sum, e) => sum + (e.debit ? -e.minor : e.minor), 0);
      const closing = moved + s.closingOff;
      expected.push({ moved, closing });
      const entries = s.entries
        .map(
          (e, k) =>
            `<Ntry><Amt Ccy="TRY">${dec(e.minor)}</Amt><CdtDbtInd>${e.debit ? "DBIT" : "CRDT"}</CdtDbtInd>${e.reversal}<BookgDt><Dt>${e.day}</Dt></BookgDt>${ref === undefined ? "" : `<AcctSvcrRef>${ref}-${expected.length}-${k}</AcctSvcrRef>`}<NtryDtls><TxDtls>${"<X>".repeat(e.nesting)}${"</X>".repeat(e.nesting)}<RltdPties><Dbtr><Nm>${xmlText(e.name)}</Nm></Dbtr></RltdPties><RmtInf><Ustrd>${xmlText(e.description)}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
        )
        .join("");
      return `<Stmt><Acct><Id><IBAN>${IBAN}</IBAN></Id></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${dec(closing)}</Amt><CdtDbtInd>${closing < 0 ? "DBIT" : "CRDT"}</CdtDbtInd></Bal>${entries}</Stmt>`;
    })
    .join("");
  return { file: camt(body), expected };
}

describe("a fuzz of statement shapes", () => {
  it("any shape is read within the limits, or refused with a StatementError; an unbalanced statement is flagged", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(statementShape, { minLength: 1, maxLength: 4 }), async (statements) => {
        const { file, expected } = camtOf(statements);
        const lines: StatementLine[] = [];
        let read: StatementTally[];
        try {
          read = (await readStatementFile(once(file), { line: (l) => void lines.push(l) }, { now: NOW }))
            .statements;
        } catch (err) {
          expect(err).toBeInstanceOf(StatementError);
          return;
        }
        for (const line of lines) {
          expect(line.amountMinor).toBeGreaterThan(0);
          expect(line.description.length).toBeLessThanOrEqual(STATEMENT_LIMITS.description);
          expect((line.senderName ?? "").length).toBeLessThanOrEqual(STATEMENT_LIMITS.name);
          expect(LAYOUT.test(`${line.description}${line.senderName ?? ""}`)).toBe(false);
          expect(Math.abs(line.bookedAt - NOW)).toBeLessThan(400 * 86_400_000);
        }
        expect(read.map((s) => s.unbalanced === null)).toEqual(expected.map((e) => e.moved === e.closing));
      }),
      { numRuns: 300 },
    );
  });

  it("any shape repeated to megabytes is read or refused within the heap budget", async () => {
    // A file of FUZZ_MB: the budget is smaller than the file, so a reader that kept it would fail.
    const FUZZ_MB = 24;
    const FUZZ_BUDGET = 16 * MB;
    await fc.assert(
      fc.asyncProperty(fc.array(statementShape, { minLength: 1, maxLength: 3 }), async (statements) => {
        const { file } = camtOf(statements);
        const open = file.indexOf("<Stmt>");
        const close = file.lastIndexOf("</Stmt>") + "</Stmt>".length;
        const { grew } = await heapGrowth(
          stream(file.slice(0, open), file.slice(open, close), FUZZ_MB * MB, file.slice(close)),
        );
        expect(grew).toBeLessThan(FUZZ_BUDGET);
      }),
      { numRuns: 8 },
    );
  });

  it("a line held back (an unbalanced statement) never approves, whatever proves it", () => {
    const candidate = (code: string): DepositCandidate => ({
      id: 1,
      firmId: 1,
      accountId: 1,
      status: "pending",
      amountMinor: 1_000,
      createdAt: NOW - 60_000,
      payer: { firstName: "Ayşe", middleName: null, lastName: "Kaya" },
      paymentCode: code,
      userId: "u-1",
      reference: "r-1",
      sandbox: false,
      settled: false,
    });
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        fc.string({ minLength: 1, maxLength: 80 }),
        (withCode, withName, held) => {
          const line: StatementLine = {
            bookedAt: NOW,
            dateOnly: false,
            amountMinor: 1_000,
            direction: "credit",
            currency: "TRY",
            senderName: withName ? "AYSE KAYA" : null,
            senderIban: null,
            description: withCode ? "ACE47KMX" : "",
            bankRef: null,
          };
          const ctx = {
            pendingWindowMs: 86_400_000,
            clockToleranceMs: 120_000,
            policyOf: () => ({ autoApprove: true, nameMayApprove: true }),
          };
          const free = matchLine(line, [candidate("ACE47KMX")], ctx);
          const approvalsHeld = { code: "unbalanced" as const, differenceMinor: -500, why: held };
          const outcome = matchLine(line, [candidate("ACE47KMX")], { ...ctx, approvalsHeld });
          expect(outcome.kind).not.toBe("approve");
          if (free.kind === "approve")
            expect(outcome).toMatchObject({
              kind: "suggest",
              why: held,
              held: { code: "unbalanced", differenceMinor: -500 },
            });
        },
      ),
    );
  });
});

/**
 * The same shapes imported into a real embedded store (src/reconciliation/import.ts): a file that is
 * refused writes nothing, neither an import row nor a line; one that is read writes one import row
 * per statement and one line per entry.
 */
describe("a fuzz of statement shapes, imported", () => {
  let made: Awaited<ReturnType<typeof storeEnv>>;
  let store: Store;
  let deps: ReconcileDeps;
  let accountId: number;

  beforeAll(async () => {
    made = await storeEnv("sqlite");
    store = await openStore({
      databaseUrl: undefined,
      dataDir: made.env.PAYINTAKE_DATA_DIR as string,
      pgPoolSize: 1,
    });
    accountId = await insertAccount(store, NOW);
    await store.db.updateTable("payment_accounts").set({ iban: IBAN }).where("id", "=", accountId).execute();
    deps = {
      repos: createRepositories(store),
      paymentCodes: await storedPaymentCodes(store, made.env),
      now: () => NOW,
      decisionsMade: () => {},
    };
  });
  afterAll(async () => {
    await store?.close();
    await made?.cleanup();
  });

  const counts = async () => {
    const imports = await store.db
      .selectFrom("statement_imports")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    const lines = await store.db
      .selectFrom("statement_lines")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return { imports: Number(imports.n), lines: Number(lines.n) };
  };

  it("a refused file writes nothing; a read one writes its statements and lines, whole", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(statementShape, { minLength: 1, maxLength: 3 }), async (statements) => {
        // Each run's entries its own: a line seen before is a duplicate, written once.
        const { file } = camtOf(statements, `F${run++}`);
        const before = await counts();
        const outcome = await importStatement(deps, accountId, once(file), "fuzz");
        const after = await counts();
        if (!outcome.ok) {
          expect(outcome.code).toBe("statement_refused");
          expect(after).toEqual(before);
          return;
        }
        expect(after.imports - before.imports).toBe(statements.length);
        expect(after.lines - before.lines).toBe(outcome.value.lines);
        expect(outcome.value.lines).toBe(statements.reduce((n, s) => n + s.entries.length, 0));
      }),
      { numRuns: 60 },
    );
  });
});
