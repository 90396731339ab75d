import { describe, expect, it } from "vitest";
import { lastResultText, reasonText, word } from "../../web/console/detail-words.js";

// The console shows routing and callback records, written in English, in the operator's language.
describe("console detail words", () => {
  it.each([
    ["accepted", "kabul edildi"],
    ["skipped", "atlandı"],
    ["delivered", "iletildi"],
    ["retry", "yeniden denenecek"],
    ["something new", "something new"],
  ])("%j reads %j in Turkish and stays itself in English", (value, tr) => {
    expect(word(value, "tr")).toBe(tr);
    expect(word(value, "en")).toBe(value);
  });

  it.each([
    ["channel breaker open", "kanal art arda hata verdiği için bir süre atlanıyor"],
    ["timed out after 8000 ms", "8000 ms içinde yanıt gelmedi"],
    ["HTTP 302 (redirects are not followed)", "HTTP 302 (yönlendirmeler izlenmez)"],
    ["HTTP 503", "HTTP 503"],
    ["address not allowed: 10.0.0.5", "izin verilmeyen adres: 10.0.0.5"],
    [
      "ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9",
      "bağlantı reddedildi (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9)",
    ],
    ["UND_ERR_SOCKET: other side closed", "bağlantı koptu (UND_ERR_SOCKET: other side closed)"],
    // A partner's own decline reason is its words: shown as they came.
    ["Limit exceeded for this IBAN", "Limit exceeded for this IBAN"],
    ["EXOTIC: something", "EXOTIC: something"],
  ])("reason %j reads %j in Turkish", (reason, tr) => {
    expect(reasonText(reason, "tr")).toBe(tr);
    expect(reasonText(reason, "en")).toBe(reason);
  });

  it("drops from a callback's last result what the detail shows apart", () => {
    expect(lastResultText("HTTP 500; next attempt 2026-11-25T10:00:00.000Z", "tr")).toBe("HTTP 500");
    expect(lastResultText("no answer; failed", "tr")).toBe("yanıt yok");
    expect(lastResultText("no answer; failed", "en")).toBe("no answer");
    expect(lastResultText(null, "en")).toBe("");
  });
});
