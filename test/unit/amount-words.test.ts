import { describe, expect, it } from "vitest";
import { amountInWords } from "../../src/payment-page/browser/amount.js";

/** The amount in words on the payment page's confirmation step, as Turkish banks write it. */
describe("amountInWords", () => {
  it.each([
    ["1500", "bin beş yüz Türk lirası", "one thousand five hundred Turkish lira"],
    [
      "1500.50",
      "bin beş yüz Türk lirası elli kuruş",
      "one thousand five hundred Turkish lira and fifty kuruş",
    ],
    ["15000", "on beş bin Türk lirası", "fifteen thousand Turkish lira"],
    ["100", "yüz Türk lirası", "one hundred Turkish lira"],
    ["250.5", "iki yüz elli Türk lirası elli kuruş", "two hundred fifty Turkish lira and fifty kuruş"],
    ["0.05", "beş kuruş", "five kuruş"],
    ["1001", "bin bir Türk lirası", "one thousand one Turkish lira"],
    ["21000", "yirmi bir bin Türk lirası", "twenty-one thousand Turkish lira"],
    ["1000000", "bir milyon Türk lirası", "one million Turkish lira"],
    [
      "2100300",
      "iki milyon yüz bin üç yüz Türk lirası",
      "two million one hundred thousand three hundred Turkish lira",
    ],
    [
      "999999999.99",
      "dokuz yüz doksan dokuz milyon dokuz yüz doksan dokuz bin dokuz yüz doksan dokuz Türk lirası doksan dokuz kuruş",
      "nine hundred ninety-nine million nine hundred ninety-nine thousand nine hundred ninety-nine Turkish lira and ninety-nine kuruş",
    ],
    ["13.07", "on üç Türk lirası yedi kuruş", "thirteen Turkish lira and seven kuruş"],
  ])("%s", (plain, tr, en) => {
    expect(amountInWords(plain, "tr")).toBe(tr);
    expect(amountInWords(plain, "en")).toBe(en);
  });
});
