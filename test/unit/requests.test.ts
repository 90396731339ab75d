import { describe, expect, it } from "vitest";
import { parseDepositRequest, parseWithdrawalRequest } from "../../src/intake/requests.js";

function deposit(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: "150.00",
    bank_code: "ZIRAAT",
    national_id: "12345678901",
    first_name: "Ayşe",
    last_name: "Yılmaz",
    username: "ayse.yilmaz@example.com",
    user_id: "U-1",
    reference: "ORD-1",
    ...overrides,
  };
}

function hosted(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body = deposit({ redirect: true, ...overrides });
  if (!("amount" in overrides)) delete body.amount;
  return body;
}

function withdrawal(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    bank_code: "ZIRAAT",
    amount: "250.00",
    first_name: "Çağrı",
    last_name: "Öztürk",
    national_id: "12345678901",
    iban: "TR330006100519786457841326",
    reference: "WD-1",
    user_id: "U-2",
    username: "+905321234567",
    ...overrides,
  };
}

function depositError(body: unknown): string {
  const r = parseDepositRequest(body);
  if (r.ok) throw new Error(`expected a validation error, got ${JSON.stringify(r.value)}`);
  return r.message;
}

function depositOk(body: unknown) {
  const r = parseDepositRequest(body);
  if (!r.ok) throw new Error(`expected success, got ${r.message}`);
  return r.value;
}

function withdrawalError(body: unknown): string {
  const r = parseWithdrawalRequest(body);
  if (r.ok) throw new Error(`expected a validation error, got ${JSON.stringify(r.value)}`);
  return r.message;
}

function withdrawalOk(body: unknown) {
  const r = parseWithdrawalRequest(body);
  if (!r.ok) throw new Error(`expected success, got ${r.message}`);
  return r.value;
}

const RETURN_URL_PARSE = "return_url ayrıştırılamadı";
const RETURN_URL_SCHEME = "return_url yalnız http veya https olabilir";
const RETURN_URL_HOST = "return_url bir sunucu adı içermeli";
const RETURN_URL_USERINFO = "return_url kullanıcı bilgisi (userinfo) içeremez";

describe("parseDepositRequest: a valid direct deposit", () => {
  it("returns every field, amount in minor units, method defaulted to fast", () => {
    expect(depositOk(deposit())).toEqual({
      bankCode: "ZIRAAT",
      firstName: "Ayşe",
      lastName: "Yılmaz",
      middleName: null,
      username: "ayse.yilmaz@example.com",
      userId: "U-1",
      reference: "ORD-1",
      nationalId: "12345678901",
      ignoredFields: null,
      amountMinor: 15_000,
      redirect: false,
      method: "fast",
      returnUrl: null,
    });
  });

  it("names the top-level keys the endpoint does not read, in the order sent", () => {
    const req = depositOk(deposit({ returnUrl: "x", nationalid: "1", nested: { a: 1 }, middle_name: "Can" }));
    expect(req.ignoredFields).toEqual(["returnUrl", "nationalid", "nested"]);
  });

  it("keeps a valid middle name, trimmed", () => {
    expect(depositOk(deposit({ middle_name: "  Can  " })).middleName).toBe("Can");
  });

  it("treats an absent, null or empty national_id as not sent", () => {
    const { national_id: _, ...without } = deposit();
    expect(depositOk(without).nationalId).toBeNull();
    expect(depositOk(deposit({ national_id: null })).nationalId).toBeNull();
    expect(depositOk(deposit({ national_id: "" })).nationalId).toBeNull();
  });

  it("does no format check on national_id", () => {
    expect(depositOk(deposit({ national_id: "AB-12" })).nationalId).toBe("AB-12");
  });

  it("rejects a body that is not a JSON object", () => {
    for (const body of [null, [], "text", 42, true]) {
      expect(depositError(body)).toMatch(/^Validation failed: /);
    }
  });
});

describe("parseDepositRequest: amount and redirect (contract table)", () => {
  it("row 1: redirect absent or false, amount empty or absent -> Amount is required", () => {
    const msg = "Validation failed: Amount is required when Redirect is false";
    const { amount: _, ...noAmount } = deposit();
    expect(depositError(noAmount)).toBe(msg);
    expect(depositError(deposit({ amount: "" }))).toBe(msg);
    expect(depositError(deposit({ amount: null }))).toBe(msg);
    expect(depositError({ ...noAmount, redirect: false })).toBe(msg);
    expect(depositError(deposit({ amount: "", redirect: false }))).toBe(msg);
    expect(depositError(deposit({ amount: "", redirect: null }))).toBe(msg);
  });

  it("row 2: redirect true, amount non-empty -> Amount must not be sent", () => {
    const msg = "Validation failed: Amount must not be sent when Redirect is true";
    expect(depositError(hosted({ amount: "150.00" }))).toBe(msg);
    expect(depositError(hosted({ amount: "0" }))).toBe(msg);
    expect(depositError(hosted({ amount: "abc" }))).toBe(msg);
    // Not a string either: still one amount too many (it was "Amount must be a string").
    for (const amount of [150, 0, false, {}, []]) expect(depositError(hosted({ amount }))).toBe(msg);
  });

  it("row 3: redirect true, amount empty or absent -> accepted (hosted mode)", () => {
    for (const body of [hosted(), hosted({ amount: "" }), hosted({ amount: null })]) {
      const v = depositOk(body);
      expect(v.redirect).toBe(true);
      expect(v.amountMinor).toBeNull();
    }
  });

  it("row 4: redirect absent or false, amount present and valid -> accepted (direct mode)", () => {
    for (const body of [deposit(), deposit({ redirect: false }), deposit({ redirect: null })]) {
      const v = depositOk(body);
      expect(v.redirect).toBe(false);
      expect(v.amountMinor).toBe(15_000);
    }
  });

  it("amount sent as a JSON number -> Amount must be a string (in hosted mode: must not be sent)", () => {
    expect(depositError(deposit({ amount: 150 }))).toBe("Validation failed: Amount must be a string");
    expect(depositError(deposit({ amount: 150.5 }))).toBe("Validation failed: Amount must be a string");
    expect(depositError(hosted({ amount: 150 }))).toBe(
      "Validation failed: Amount must not be sent when Redirect is true",
    );
  });

  it.each([["abc"], ["-1"], ["0"], ["0.00"], ["1.234"], ["1e3"], [" 1"], ["1,50"], ["1000000000"]])(
    "amount %j is a 400 on the Amount field",
    (amount) => {
      expect(depositError(deposit({ amount }))).toMatch(/^Validation failed: Amount /);
    },
  );

  it("redirect that is not a boolean is rejected on Redirect", () => {
    expect(depositError(deposit({ redirect: "true" }))).toMatch(/^Validation failed: Redirect /);
    expect(depositError(deposit({ redirect: 1 }))).toMatch(/^Validation failed: Redirect /);
  });

  it("accepts the amount edge values", () => {
    expect(depositOk(deposit({ amount: "0.01" })).amountMinor).toBe(1);
    expect(depositOk(deposit({ amount: "999999999.99" })).amountMinor).toBe(99_999_999_999);
    expect(depositOk(deposit({ amount: "150.5" })).amountMinor).toBe(15_050);
  });
});

describe("parseDepositRequest: first failing field in request-table order", () => {
  it("BankCode before Username", () => {
    expect(depositError(deposit({ bank_code: "", username: "a b" }))).toBe(
      "Validation failed: BankCode is required",
    );
  });

  it("Amount before BankCode", () => {
    expect(depositError(deposit({ amount: "abc", bank_code: "" }))).toMatch(/^Validation failed: Amount /);
  });

  it("follows amount, bank_code, national_id, first_name, last_name, username, user_id, reference, method, return_url", () => {
    const bad: [string, unknown, string][] = [
      ["bank_code", "", "BankCode"],
      ["national_id", "12\u000034", "NationalID"],
      ["first_name", "A1", "FirstName"],
      ["last_name", "B2", "LastName"],
      ["username", "a b", "Username"],
      ["user_id", "", "UserID"],
      ["reference", "", "Reference"],
      ["method", "card", "Method"],
      ["return_url", "x".repeat(501), "ReturnURL"],
    ];
    // With all bad at once, each step reports the earliest; removing it exposes the next.
    for (let i = 0; i < bad.length; i++) {
      const overrides: Record<string, unknown> = {};
      for (const [key, value] of bad.slice(i)) overrides[key] = value;
      const struct = bad[i]?.[2];
      expect(depositError(deposit(overrides))).toMatch(new RegExp(`^Validation failed: ${struct} `));
    }
  });

  it("an invalid middle_name never blocks or reorders the other fields", () => {
    expect(depositError(deposit({ middle_name: "123", username: "a b" }))).toMatch(
      /^Validation failed: Username /,
    );
  });
});

describe("parseDepositRequest: message texts", () => {
  it.each([
    [{ bank_code: undefined }, "Validation failed: BankCode is required"],
    [{ bank_code: null }, "Validation failed: BankCode is required"],
    [{ bank_code: "" }, "Validation failed: BankCode is required"],
    [{ bank_code: "x".repeat(21) }, "Validation failed: BankCode is too long (over 20 chars)"],
    [{ bank_code: 12 }, "Validation failed: BankCode must be a string"],
    [{ first_name: undefined }, "Validation failed: FirstName is required"],
    [{ first_name: "A" }, "Validation failed: FirstName is too short (under 2 chars)"],
    [{ first_name: "A".repeat(51) }, "Validation failed: FirstName is too long (over 50 chars)"],
    [{ first_name: "Ali2" }, "Validation failed: FirstName contains invalid characters"],
    [{ last_name: null }, "Validation failed: LastName is required"],
    [{ last_name: "Y" }, "Validation failed: LastName is too short (under 2 chars)"],
    [{ last_name: "Yılmaz3" }, "Validation failed: LastName contains invalid characters"],
    [{ username: "" }, "Validation failed: Username is required"],
    [{ username: "ab" }, "Validation failed: Username is too short (under 3 chars)"],
    [{ username: "a".repeat(101) }, "Validation failed: Username is too long (over 100 chars)"],
    [{ username: "a b c" }, "Validation failed: Username contains invalid characters"],
    [{ user_id: "" }, "Validation failed: UserID is required"],
    [{ user_id: "u".repeat(51) }, "Validation failed: UserID is too long (over 50 chars)"],
    [{ reference: null }, "Validation failed: Reference is required"],
    [{ reference: "r".repeat(101) }, "Validation failed: Reference is too long (over 100 chars)"],
    [{ method: "card" }, "Validation failed: Method must be one of fast, eft, havale"],
    [{ return_url: "x".repeat(501) }, "Validation failed: ReturnURL is too long (over 500 chars)"],
  ])("%j -> %s", (overrides, message) => {
    const body = deposit(overrides);
    for (const [k, v] of Object.entries(overrides)) if (v === undefined) delete body[k];
    expect(depositError(body)).toBe(message);
  });

  it("accepts the upper length bounds", () => {
    const v = depositOk(
      deposit({
        bank_code: "b".repeat(20),
        first_name: "A".repeat(50),
        last_name: "B".repeat(50),
        username: "u".repeat(100),
        user_id: "i".repeat(50),
        reference: "r".repeat(100),
      }),
    );
    expect(v.reference).toHaveLength(100);
    expect(
      depositOk(deposit({ first_name: "Al", bank_code: "Z", username: "abc", user_id: "1" })).firstName,
    ).toBe("Al");
  });
});

describe("parseDepositRequest: method", () => {
  it("defaults to fast when absent, null or empty", () => {
    expect(depositOk(deposit()).method).toBe("fast");
    expect(depositOk(deposit({ method: null })).method).toBe("fast");
    expect(depositOk(deposit({ method: "" })).method).toBe("fast");
  });

  it.each(["fast", "eft", "havale"])("accepts %s", (method) => {
    expect(depositOk(deposit({ method })).method).toBe(method);
  });

  it.each(["card", "FASTT", "eft ", 7])("rejects %j on Method", (method) => {
    expect(depositError(deposit({ method }))).toMatch(/^Validation failed: Method /);
  });
});

describe("parseDepositRequest: names", () => {
  it.each([
    "Ayşe",
    "Çağrı",
    "İlknur",
    "Işıl",
    "Gülşen",
    "Öykü",
    "Ümit",
    "O'Brien",
    "Jean-Luc",
    "St. John",
    "Mary Ann",
    "José",
    "Zoë",
    "Владимир",
    "محمد",
  ])("accepts first and last name %j", (name) => {
    const v = depositOk(deposit({ first_name: name, last_name: name }));
    expect(v.firstName).toBe(name);
    expect(v.lastName).toBe(name);
  });

  it.each(["Élodie", "E\u0301lodie", "ผู้ใหญ่", "मनोज"])(
    "accepts letters with their combining marks %j",
    (name) => {
      expect(depositOk(deposit({ first_name: name })).firstName).toBe(name);
    },
  );

  it.each([
    "Ali2",
    "4li",
    "Ahmet_",
    "Ali@",
    "Ali!",
    "Ali\tVeli",
    "Ali<b>",
    "Ali😀",
    // Marks with no letter to sit on, and characters that render as nothing.
    "\u0301\u0301",
    " \u0301",
    "Ali\u034F",
    "\u034F\u034F",
    "\u3164\u3164",
    "Ali\uFE0F",
    "Ali\u200B",
  ])("rejects first name %j", (name) => {
    expect(depositError(deposit({ first_name: name }))).toBe(
      "Validation failed: FirstName contains invalid characters",
    );
  });

  it("rejects digits in the last name", () => {
    expect(depositError(deposit({ last_name: "Yilmaz 2" }))).toBe(
      "Validation failed: LastName contains invalid characters",
    );
  });

  it("counts name length in code points, not UTF-16 units", () => {
    const astral = "𝒜"; // U+1D49C, a letter outside the BMP (2 UTF-16 units)
    expect(depositOk(deposit({ first_name: astral.repeat(50) })).firstName).toBe(astral.repeat(50));
    expect(depositError(deposit({ first_name: astral.repeat(51) }))).toBe(
      "Validation failed: FirstName is too long (over 50 chars)",
    );
    expect(depositOk(deposit({ first_name: astral.repeat(2) })).firstName).toBe(astral.repeat(2));
  });
});

describe("parseDepositRequest: username", () => {
  it.each([
    "ali.veli@example.com",
    "+905321234567",
    "user#1",
    "user_name-1",
    "ayşe.yılmaz",
    "İlknur_99",
    "abc",
    "a+b@c.d",
    "😀😀😀",
  ])("accepts %j", (username) => {
    expect(depositOk(deposit({ username })).username).toBe(username);
  });

  it.each([
    ["space", "ali veli"],
    ["leading space", " alice"],
    ["tab", "ali\tveli"],
    ["newline", "ali\nveli"],
    ["no-break space", "ali\u00A0veli"],
    ["ideographic space", "ali\u3000veli"],
    ["zero-width space U+200B", "ali\u200Bveli"],
    ["zero-width joiner U+200D", "ali\u200Dveli"],
    ["RTL mark U+200F", "ali\u200Fveli"],
    ["LTR mark U+200E", "ali\u200Eveli"],
    ["RTL override U+202E", "ali\u202Eveli"],
    ["word joiner U+2060", "ali\u2060veli"],
    ["BOM U+FEFF", "\uFEFFalice"],
    ["soft hyphen U+00AD", "ali\u00ADveli"],
    ["Hangul filler U+3164", "ali\u3164veli"],
    ["braille blank U+2800", "ali\u2800veli"],
    ["combining grapheme joiner U+034F", "a\u034Fb"],
    ["Mongolian variation selector U+180B", "abc\u180B"],
    ["Khmer vowel inherent U+17B5", "abc\u17B5"],
    ["variation selector-16 U+FE0F", "ali\u2764\uFE0F"],
    ["variation selector-17 U+E0100", "abc\u{E0100}"],
    ["tag character U+E0041", "abc\u{E0041}"],
    ["DEL", "ali\u007Fveli"],
    ["C1 control U+0085", "ali\u0085veli"],
    ["less-than", "ali<veli"],
    ["greater-than", "ali>veli"],
    ["double quote", 'ali"veli'],
    ["single quote", "ali'veli"],
    ["backtick", "ali`veli"],
    ["backslash", "ali\\veli"],
  ])("rejects %s", (_label, username) => {
    expect(depositError(deposit({ username }))).toBe(
      "Validation failed: Username contains invalid characters",
    );
  });

  it("counts length in code points (emoji are one char each)", () => {
    const e = "😀"; // 2 UTF-16 units
    expect(depositError(deposit({ username: `a${e}` }))).toBe(
      "Validation failed: Username is too short (under 3 chars)",
    );
    expect(depositOk(deposit({ username: e.repeat(100) })).username).toBe(e.repeat(100));
    expect(depositError(deposit({ username: e.repeat(101) }))).toBe(
      "Validation failed: Username is too long (over 100 chars)",
    );
  });
});

describe("parseDepositRequest: NUL and control characters", () => {
  it.each([
    ["bank_code", "BankCode"],
    ["national_id", "NationalID"],
    ["first_name", "FirstName"],
    ["last_name", "LastName"],
    ["username", "Username"],
    ["user_id", "UserID"],
    ["reference", "Reference"],
  ])("rejects NUL in %s", (key, struct) => {
    expect(depositError(deposit({ [key]: "Abc\u0000def" }))).toBe(
      `Validation failed: ${struct} contains invalid characters`,
    );
  });

  it("rejects NUL in method and amount", () => {
    expect(depositError(deposit({ method: "fast\u0000" }))).toMatch(/^Validation failed: Method /);
    expect(depositError(deposit({ amount: "150\u0000" }))).toMatch(/^Validation failed: Amount /);
  });

  it("return_url with control characters: unparseable in hosted mode, ignored in direct mode (the contract)", () => {
    for (const url of [
      "https://x.com/\u0000",
      "https://shop.example/\tback",
      "https://shop.example/back\n",
    ]) {
      expect(depositError(hosted({ return_url: url }))).toBe(RETURN_URL_PARSE);
      expect(depositOk(deposit({ return_url: url })).returnUrl).toBeNull();
    }
    // The length rule still applies in both modes.
    expect(depositError(deposit({ return_url: `https://x.com/${"\n".repeat(500)}` }))).toBe(
      "Validation failed: ReturnURL is too long (over 500 chars)",
    );
  });

  it("reports a malformed Amount before a malformed Redirect (the order of the request table)", () => {
    expect(depositError(deposit({ amount: "abc", redirect: "yes" }))).toBe(
      "Validation failed: Amount must be a decimal number",
    );
    expect(depositError(deposit({ amount: "150.00", redirect: "yes" }))).toBe(
      "Validation failed: Redirect must be a boolean",
    );
    expect(depositError(deposit({ amount: undefined, redirect: "yes" }))).toBe(
      "Validation failed: Redirect must be a boolean",
    );
  });

  it("rejects other C0 control characters in references and ids", () => {
    expect(depositError(deposit({ reference: "ORD\n1" }))).toBe(
      "Validation failed: Reference contains invalid characters",
    );
    expect(depositError(deposit({ user_id: "U\u00011" }))).toBe(
      "Validation failed: UserID contains invalid characters",
    );
    expect(depositError(deposit({ bank_code: "Z\u007F" }))).toBe(
      "Validation failed: BankCode contains invalid characters",
    );
  });

  it.each([
    ["U+202E right-to-left override", "\u202E"],
    ["U+202A left-to-right embedding", "\u202A"],
    ["U+2066 left-to-right isolate", "\u2066"],
    ["U+2069 pop directional isolate", "\u2069"],
    ["U+2028 line separator", "\u2028"],
    ["U+2029 paragraph separator", "\u2029"],
    ["U+0085 next line", "\u0085"],
  ])("refuses %s in references, ids and the bank code, as a control character", (_name, c) => {
    const fields: [string, string][] = [
      ["reference", "Reference"],
      ["user_id", "UserID"],
      ["bank_code", "BankCode"],
      ["national_id", "NationalID"],
    ];
    for (const [key, struct] of fields)
      expect(depositError(deposit({ [key]: `AB${c}12` }))).toBe(
        `Validation failed: ${struct} contains invalid characters`,
      );
    expect(withdrawalOk(withdrawal({ iban: `TR33${c}0006100519786457841326` })).iban).toBe(
      "TR330006100519786457841326",
    );
  });

  it("a NUL in middle_name only drops the middle name", () => {
    expect(depositOk(deposit({ middle_name: "Can\u0000" })).middleName).toBeNull();
  });
});

describe("parseDepositRequest: JSON null equals absent", () => {
  it("optional fields sent as null are accepted as not sent", () => {
    const v = depositOk(
      deposit({ national_id: null, middle_name: null, method: null, return_url: null, redirect: null }),
    );
    expect(v.nationalId).toBeNull();
    expect(v.middleName).toBeNull();
    expect(v.method).toBe("fast");
    expect(v.returnUrl).toBeNull();
    expect(v.redirect).toBe(false);
  });

  it.each([
    ["bank_code", "BankCode"],
    ["first_name", "FirstName"],
    ["last_name", "LastName"],
    ["username", "Username"],
    ["user_id", "UserID"],
    ["reference", "Reference"],
  ])("required %s sent as null is 'is required', like a missing key", (key, struct) => {
    const withNull = depositError(deposit({ [key]: null }));
    const body = deposit();
    delete body[key];
    expect(withNull).toBe(`Validation failed: ${struct} is required`);
    expect(depositError(body)).toBe(withNull);
  });
});

describe("parseDepositRequest: middle_name never rejects", () => {
  it.each([
    ["null"],
    ["NULL"],
    ["undefined"],
    ["None"],
    ["yok"],
    ["Yok"],
    [""],
    ["   "],
    ["-"],
    ["."],
    ["Can2"],
    ["x".repeat(51)],
    [null],
    [42],
    [true],
    [{ a: 1 }],
    [["Can"]],
  ])("middle_name %j -> request accepted without a middle name", (middle_name) => {
    expect(depositOk(deposit({ middle_name })).middleName).toBeNull();
    expect(withdrawalOk(withdrawal({ middle_name })).middleName).toBeNull();
  });
});

describe("parseDepositRequest: return_url", () => {
  it("is ignored in direct mode, even when invalid", () => {
    for (const return_url of [
      "ftp://x.com",
      "http://",
      "https://user:pass@x.com",
      "%zz",
      "https://x.com/back",
    ]) {
      const v = depositOk(deposit({ return_url }));
      expect(v.returnUrl).toBeNull();
    }
  });

  it("still has its length checked in direct mode", () => {
    expect(depositError(deposit({ return_url: `https://x.com/${"a".repeat(487)}` }))).toBe(
      "Validation failed: ReturnURL is too long (over 500 chars)",
    );
  });

  it("is kept in hosted mode when valid", () => {
    expect(depositOk(hosted({ return_url: "https://shop.example.com/back?o=1" })).returnUrl).toBe(
      "https://shop.example.com/back?o=1",
    );
    expect(depositOk(hosted({ return_url: "http://shop.example.com" })).returnUrl).toBe(
      "http://shop.example.com",
    );
  });

  it("empty, null or absent is accepted in hosted mode with no return URL", () => {
    expect(depositOk(hosted()).returnUrl).toBeNull();
    expect(depositOk(hosted({ return_url: "" })).returnUrl).toBeNull();
    expect(depositOk(hosted({ return_url: null })).returnUrl).toBeNull();
  });

  it("exactly 500 chars is accepted, 501 is too long (hosted mode)", () => {
    const base = "https://shop.example.com/";
    const ok = base + "a".repeat(500 - base.length);
    expect(ok).toHaveLength(500);
    expect(depositOk(hosted({ return_url: ok })).returnUrl).toBe(ok);
    expect(depositError(hosted({ return_url: `${ok}a` }))).toBe(
      "Validation failed: ReturnURL is too long (over 500 chars)",
    );
  });

  it("counts the 500 in code points", () => {
    const base = "https://shop.example.com/";
    const ok = base + "ş".repeat(500 - base.length);
    expect(depositOk(hosted({ return_url: ok })).returnUrl).toBe(ok);
    const astral = base + "😀".repeat(500 - base.length);
    expect(depositOk(hosted({ return_url: astral })).returnUrl).toBe(astral);
  });

  it.each([
    ["ftp://x.com", RETURN_URL_SCHEME],
    ["javascript:alert(1)", RETURN_URL_SCHEME],
    ["x.com/back", RETURN_URL_SCHEME],
    ["http://", RETURN_URL_HOST],
    ["https:///", RETURN_URL_HOST],
    ["https://user:pass@x.com", RETURN_URL_USERINFO],
    ["http://[::1", RETURN_URL_PARSE],
    ["%zz", RETURN_URL_PARSE],
  ])("hosted mode: %j -> %s (verbatim, no prefix)", (return_url, message) => {
    expect(depositError(hosted({ return_url }))).toBe(message);
  });

  it("a non-string return_url is rejected on ReturnURL", () => {
    expect(depositError(hosted({ return_url: 5 }))).toBe("Validation failed: ReturnURL must be a string");
  });
});

describe("parseWithdrawalRequest", () => {
  it("returns every field of a valid withdrawal", () => {
    expect(withdrawalOk(withdrawal())).toEqual({
      bankCode: "ZIRAAT",
      firstName: "Çağrı",
      lastName: "Öztürk",
      middleName: null,
      username: "+905321234567",
      userId: "U-2",
      reference: "WD-1",
      nationalId: "12345678901",
      ignoredFields: null,
      amountMinor: 25_000,
      method: "fast",
      iban: "TR330006100519786457841326",
    });
  });

  it("amount is required (absent, null, empty)", () => {
    const { amount: _, ...noAmount } = withdrawal();
    for (const body of [noAmount, withdrawal({ amount: null }), withdrawal({ amount: "" })]) {
      expect(withdrawalError(body)).toMatch(/^Validation failed: Amount /);
    }
  });

  it("amount as a JSON number -> Amount must be a string", () => {
    expect(withdrawalError(withdrawal({ amount: 250 }))).toBe("Validation failed: Amount must be a string");
  });

  it.each(["abc", "0", "-5", "1.234", "1000000000"])("rejects amount %j on Amount", (amount) => {
    expect(withdrawalError(withdrawal({ amount }))).toMatch(/^Validation failed: Amount /);
  });

  it("follows bank_code, amount, first_name, last_name, national_id, iban, reference, user_id, username", () => {
    const bad: [string, unknown, string][] = [
      ["bank_code", "", "BankCode"],
      ["amount", "abc", "Amount"],
      ["first_name", "A1", "FirstName"],
      ["last_name", "B2", "LastName"],
      ["national_id", "12\u000034", "NationalID"],
      ["iban", "T".repeat(65), "IBAN"],
      ["reference", "", "Reference"],
      ["user_id", "", "UserID"],
      ["username", "a b", "Username"],
    ];
    for (let i = 0; i < bad.length; i++) {
      const overrides: Record<string, unknown> = {};
      for (const [key, value] of bad.slice(i)) overrides[key] = value;
      const struct = bad[i]?.[2];
      expect(withdrawalError(withdrawal(overrides))).toMatch(new RegExp(`^Validation failed: ${struct} `));
    }
  });

  it("a missing or malformed IBAN is never an error", () => {
    const { iban: _, ...noIban } = withdrawal();
    expect(withdrawalOk(noIban).iban).toBeNull();
    expect(withdrawalOk(withdrawal({ iban: null })).iban).toBeNull();
    expect(withdrawalOk(withdrawal({ iban: "" })).iban).toBeNull();
    for (const iban of [
      "not-an-iban",
      "TR000000000000000000000000",
      "DE89370400440532013000",
      "1",
      "TR33 0006",
    ]) {
      expect(withdrawalOk(withdrawal({ iban })).iban).toBe(iban);
    }
  });

  it("an IBAN up to 64 chars is accepted; over 64 is a 400", () => {
    expect(withdrawalOk(withdrawal({ iban: "X".repeat(64) })).iban).toBe("X".repeat(64));
    expect(withdrawalError(withdrawal({ iban: "X".repeat(65) }))).toBe(
      "Validation failed: IBAN is too long (over 64 chars)",
    );
  });

  it.each([
    ["bank_code", "BankCode"],
    ["first_name", "FirstName"],
    ["last_name", "LastName"],
    ["national_id", "NationalID"],
    ["reference", "Reference"],
    ["user_id", "UserID"],
    ["username", "Username"],
  ])("rejects NUL in %s", (key, struct) => {
    expect(withdrawalError(withdrawal({ [key]: "Abc\u0000def" }))).toBe(
      `Validation failed: ${struct} contains invalid characters`,
    );
  });

  it("never refuses an IBAN for its content: control characters are dropped, validity judged after", () => {
    const pasted = withdrawalOk(withdrawal({ iban: "TR330006100519786457841326\n" }));
    expect(pasted.iban).toBe("TR330006100519786457841326");
    expect(withdrawalOk(withdrawal({ iban: "TR33\u00000006\t100519786457841326" })).iban).toBe(
      "TR330006100519786457841326",
    );
    expect(withdrawalOk(withdrawal({ iban: "\u0000\r\n" })).iban).toBeNull();
    // Its type and its length are still rules, as for every field.
    expect(withdrawalError(withdrawal({ iban: 42 }))).toBe("Validation failed: IBAN must be a string");
    expect(withdrawalError(withdrawal({ iban: "T".repeat(65) }))).toBe(
      "Validation failed: IBAN is too long (over 64 chars)",
    );
  });

  it("keeps a valid middle name and ignores placeholders", () => {
    expect(withdrawalOk(withdrawal({ middle_name: " Mehmet Ali " })).middleName).toBe("Mehmet Ali");
    expect(withdrawalOk(withdrawal({ middle_name: "NONE" })).middleName).toBeNull();
  });

  it("ignores deposit-only fields; a method that is not fast, eft or havale reads as fast", () => {
    const v = withdrawalOk(withdrawal({ redirect: "junk", method: "card", return_url: "ftp://x" }));
    expect(v.amountMinor).toBe(25_000);
    expect(v.method).toBe("fast");
    for (const odd of [undefined, null, "", " ", "swift", "e ft", 7, ["eft"], { eft: true }]) {
      expect(withdrawalOk(withdrawal({ method: odd })).method).toBe("fast");
    }
    for (const method of ["fast", "eft", "havale"])
      expect(withdrawalOk(withdrawal({ method })).method).toBe(method);
    expect(withdrawalOk(withdrawal({ method: " EFT " })).method).toBe("eft");
    expect(withdrawalOk(withdrawal({ method: "Havale" })).method).toBe("havale");
  });

  it("JSON null equals absent for required fields", () => {
    expect(withdrawalError(withdrawal({ reference: null }))).toBe("Validation failed: Reference is required");
    expect(withdrawalError(withdrawal({ bank_code: null }))).toBe("Validation failed: BankCode is required");
  });

  it("applies the name and username rules", () => {
    expect(withdrawalOk(withdrawal({ first_name: "İlknur", last_name: "St. John" })).lastName).toBe(
      "St. John",
    );
    expect(withdrawalError(withdrawal({ first_name: "Ali3" }))).toBe(
      "Validation failed: FirstName contains invalid characters",
    );
    expect(withdrawalError(withdrawal({ username: "ali\u200Fveli" }))).toBe(
      "Validation failed: Username contains invalid characters",
    );
  });

  it("rejects a body that is not a JSON object", () => {
    expect(withdrawalError(null)).toMatch(/^Validation failed: /);
    expect(withdrawalError([withdrawal()])).toMatch(/^Validation failed: /);
  });
});
