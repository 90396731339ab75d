import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isoTime,
  RawJson,
  type TransactionRecord,
  toJson,
  transactionView,
} from "../../src/domain/transaction-view.js";

function record(overrides: Partial<TransactionRecord> = {}): TransactionRecord {
  return {
    id: 42,
    reference: "ORD-1",
    type: "deposit",
    status: "pending",
    amount: 15_000,
    method: "fast",
    first_name: "Ayşe",
    last_name: "Yılmaz",
    middle_name: null,
    username: "ayse@example.com",
    user_id: "U-1",
    national_id_masked: "12***01",
    bank_code: "ZIRAAT",
    iban: null,
    assigned_bank_name: "Ziraat Bankası",
    assigned_holder_name: "Ödeme Hizmetleri A.Ş.",
    assigned_iban: "TR330006100519786457841326",
    created_at: Date.UTC(2026, 10, 22, 10, 15, 30),
    updated_at: Date.UTC(2026, 10, 22, 10, 16, 0, 123),
    ...overrides,
  };
}

describe("toJson", () => {
  it("writes a RawJson amount as 150.00 in the raw text", () => {
    const text = toJson({ amount: new RawJson("150.00") });
    expect(text).toBe('{"amount":150.00}');
    expect(JSON.parse(text)).toEqual({ amount: 150 });
  });

  it("writes the transaction amount with exactly 2 decimals", () => {
    expect(toJson(transactionView(record({ amount: 15_000 })))).toContain('"amount":150.00,');
    expect(toJson(transactionView(record({ amount: 5 })))).toContain('"amount":0.05,');
    expect(toJson(transactionView(record({ amount: 15_050 })))).toContain('"amount":150.50,');
    expect(toJson(transactionView(record({ amount: 99_999_999_999 })))).toContain('"amount":999999999.99,');
  });

  it("works nested, in arrays and next to other values", () => {
    const text = toJson({
      success: true,
      status: "pending",
      data: { amount: new RawJson("1.10") },
      list: [new RawJson("2.00")],
    });
    expect(text).toBe('{"success":true,"status":"pending","data":{"amount":1.10},"list":[2.00]}');
  });

  it("keeps strings with quotes, backslashes and other specials intact", () => {
    const nasty = [
      'He said "hi"',
      "C:\\path\\to",
      '\\"',
      "\\u0000raw:1\\u0000",
      '"\\u0000raw:1\\u0000"',
      "line\nbreak\ttab",
      "\u2028\u2029",
      "😀 ş İ",
      "</script>",
      "raw:150.00",
    ];
    for (const s of nasty) {
      const text = toJson({ reference: s, amount: new RawJson("150.00") });
      expect(JSON.parse(text)).toEqual({ reference: s, amount: 150 });
    }
  });

  it("keeps any string without NUL intact next to a raw amount", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 60 }).filter((s) => !s.includes("\u0000")),
        fc.dictionary(
          fc.string({ maxLength: 8 }),
          fc.string({ unit: "binary", maxLength: 30 }).filter((s) => !s.includes("\u0000")),
        ),
        (s, extra) => {
          const value = { ...extra, a: s, amount: new RawJson("150.00"), b: [s] };
          const parsed = JSON.parse(toJson(value));
          expect(parsed.a).toBe(s);
          expect(parsed.b).toEqual([s]);
          expect(parsed.amount).toBe(150);
        },
      ),
    );
  });

  it("writes any JSON value without a raw amount exactly as JSON.stringify does", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(toJson(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it("writes raw amounts anywhere in any JSON value, the rest as JSON.stringify does", () => {
    // Raw amounts are put into objects and arrays at every depth; parsed back, the text must be the
    // same value with those amounts as numbers, each written with its two decimals.
    type Walk = { i: number; placed: number };
    const place = (value: unknown, flips: boolean[], at: Walk, raw: boolean): unknown => {
      const flip = () => flips[at.i++ % flips.length] === true;
      const amount = (n: number) => {
        at.placed += 1;
        return raw ? new RawJson((n / 100).toFixed(2)) : n / 100;
      };
      if (Array.isArray(value)) {
        const items = value.map((v) => place(v, flips, at, raw));
        return flip() ? [...items, amount(at.i * 101)] : items;
      }
      if (value === null || typeof value !== "object") return value;
      const entries = Object.entries(value).map(([k, v]) => [k, place(v, flips, at, raw)] as const);
      if (flip()) entries.splice(at.i % (entries.length + 1), 0, [`amount${at.i}`, amount(at.i * 7)]);
      return Object.fromEntries(entries);
    };
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.boolean(), { minLength: 1, maxLength: 20 }), (value, flips) => {
        const walk = { i: 0, placed: 0 };
        const withRaw = place(value, flips, walk, true);
        const expected = place(value, flips, { i: 0, placed: 0 }, false);
        const text = toJson(withRaw);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(expected)));
        // Strings can hold such text too, hence at least: every raw amount keeps its two decimals.
        expect(text.match(/\d\.\d\d(?=[,}\]])/g)?.length ?? 0).toBeGreaterThanOrEqual(walk.placed);
      }),
      { numRuns: 300 },
    );
  });

  it("writes a field named __proto__ as a field next to a raw amount", () => {
    const value = JSON.parse('{"a":1,"__proto__":{"b":2},"c":"x"}') as Record<string, unknown>;
    value.amount = new RawJson("1.00");
    const text = toJson(value);
    expect(text).toBe('{"a":1,"__proto__":{"b":2},"c":"x","amount":1.00}');
  });

  it("leaves out what JSON.stringify leaves out, and writes a Date as its ISO text", () => {
    const value = { a: undefined, b: () => 1, c: Symbol("c"), d: [undefined, () => 1], e: new Date(0) };
    expect(toJson(value)).toBe(JSON.stringify(value));
    expect(toJson(Object.create({ inherited: 1 }))).toBe("{}");
  });

  it("keeps a string value as a string even when it holds NUL characters", () => {
    // A string must never be able to turn itself into raw JSON: e.g. an operator-entered holder name.
    const s = "\u0000raw:1}\u0000";
    const text = toJson({ assigned_holder_name: s, amount: new RawJson("150.00") });
    expect(() => JSON.parse(text)).not.toThrow();
    expect(JSON.parse(text)).toEqual({ assigned_holder_name: s, amount: 150 });
  });
});

describe("transactionView", () => {
  it("builds a deposit view with exactly the contract's fields", () => {
    const view = transactionView(record());
    expect(JSON.parse(toJson(view))).toEqual({
      id: 42,
      reference: "ORD-1",
      type: "deposit",
      status: "pending",
      amount: 150,
      method: "fast",
      first_name: "Ayşe",
      last_name: "Yılmaz",
      username: "ayse@example.com",
      user_id: "U-1",
      national_id: "12***01",
      bank_code: "ZIRAAT",
      assigned_bank_name: "Ziraat Bankası",
      assigned_holder_name: "Ödeme Hizmetleri A.Ş.",
      assigned_iban: "TR330006100519786457841326",
      created_at: "2026-11-22T10:15:30.000Z",
      updated_at: "2026-11-22T10:16:00.123Z",
    });
  });

  it("includes middle_name only when one was stored", () => {
    expect(transactionView(record())).not.toHaveProperty("middle_name");
    expect(transactionView(record({ middle_name: "Can" })).middle_name).toBe("Can");
  });

  it("gives withdrawals their iban and method and no assigned_* fields", () => {
    const view = transactionView(
      record({
        type: "withdrawal",
        method: "havale",
        iban: "TR330006100519786457841326",
        assigned_bank_name: null,
        assigned_holder_name: null,
        assigned_iban: null,
      }),
    );
    expect(view.type).toBe("withdrawal");
    expect(view.iban).toBe("TR330006100519786457841326");
    expect(view.method).toBe("havale");
    expect(view).not.toHaveProperty("assigned_bank_name");
    expect(view).not.toHaveProperty("assigned_holder_name");
    expect(view).not.toHaveProperty("assigned_iban");
  });

  it("reads a withdrawal stored without a method (written before withdrawals carried one) as fast", () => {
    const view = transactionView(record({ type: "withdrawal", method: null, iban: null }));
    expect(view.method).toBe("fast");
    expect(Object.keys(view).indexOf("method")).toBe(Object.keys(view).indexOf("amount") + 1);
  });

  it("gives deposits no iban field", () => {
    expect(transactionView(record())).not.toHaveProperty("iban");
  });

  it("never leaks internal columns, even when the record carries them", () => {
    const leaky = {
      ...record(),
      firm_id: 7,
      merchant_id: 7,
      callback_url: "https://hooks.example/cb",
      processed_by: "op",
      handling_by: "op",
      amount_edited_by: "op",
      original_amount: 1,
      decision_note: "x",
      decision_note_internal: "y",
      refund_amount: 1,
      national_id_sealed: "v1:abc",
      account_id: 3,
      iban_valid: 1,
    } as TransactionRecord;
    const text = toJson(transactionView(leaky));
    for (const key of [
      "firm_id",
      "merchant_id",
      "callback_url",
      "processed_by",
      "handling_by",
      "amount_edited_by",
      "original_amount",
      "decision_note",
      "refund_",
      "national_id_sealed",
      "account_id",
      "iban_valid",
    ]) {
      expect(text).not.toContain(`"${key}`);
    }
  });

  it("writes the masked national id, never a raw one", () => {
    expect(transactionView(record({ national_id_masked: "12***01" })).national_id).toBe("12***01");
  });

  it("reads *** for a transaction created without a national id, also one stored as '' before that rule", () => {
    expect(transactionView(record({ national_id_masked: null })).national_id).toBe("***");
    expect(transactionView(record({ national_id_masked: "" })).national_id).toBe("***");
  });

  it("writes timestamps as ISO 8601 UTC with Z", () => {
    expect(isoTime(Date.UTC(2026, 10, 22, 10, 15, 30))).toBe("2026-11-22T10:15:30.000Z");
    const view = transactionView(record());
    expect(view.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
  });
});
