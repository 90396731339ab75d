/**
 * The "Bakiyeler" screen's words (balances.tsx, balances-days.tsx), tables of words (words.ts): the
 * screen's own, a bank account's state against the ledger, and what caused a posting, each by the
 * code the server answers. A code these words do not know (a newer server's) shows as it came.
 */

import type { BankAccountState } from "../../src/backoffice/operator-services.js";
import type { PostingKind } from "../../src/domain/ledger.js";
import { fill, type Lang, type WordTable, wordsIn } from "./words";

export const BALANCE_WORDS = {
  balances: { tr: "Bakiyeler", en: "Balances" },
  balancesIntro: {
    tr: "Her firmaya şu an borçlu olunan tutar ve her banka hesabının deftere göre son kontrolü. Test firmaları listelenmez: paraları gerçek değildir.",
    en: "What the service owes each firm now, and each bank account's last check against the ledger. Test firms are not listed: their money is not real.",
  },
  firmsTitle: { tr: "Firmaların bakiyeleri", en: "Firms' balances" },
  firm: { tr: "Firma", en: "Firm" },
  balance: { tr: "Bakiye", en: "Balance" },
  inTransit: { tr: "Yolda", en: "In transit" },
  held: { tr: "Partilerde tutulan", en: "Held in batches" },
  available: { tr: "Kullanılabilir", en: "Available" },
  total: { tr: "Toplam", en: "Total" },
  closedFirm: { tr: "kapalı", en: "closed" },
  noFirms: { tr: "Henüz canlı firma yok.", en: "No live firm yet." },
  sortBy: { tr: "{column} sütununa göre sırala", en: "Sort by {column}" },
  firmDaysOf: { tr: "{name}: günler", en: "{name}: days" },
  balancesHelp: {
    tr: "Bakiye: yatırımlar, komisyonlar ve ödenen ya da yoldaki çekimler düşülerek. Yolda: bankaya gönderilmiş, banka hareketi henüz görülmemiş çekimler. Kullanılabilir: bakiyeden, henüz gönderilmemiş partilerdeki ödemelerin tuttuğu düşülmüş tutar.",
    en: "Balance: deposits less commissions and withdrawals paid or on their way. In transit: withdrawals sent to the bank whose debit is not seen yet. Available: the balance less what payouts in batches not yet sent hold back.",
  },
  accountsTitle: { tr: "Banka hesaplarının kontrolü", en: "Bank accounts' check" },
  accountsHelp: {
    tr: "Aynı IBAN'ı paylaşan hesaplar tek satırdır. Fark, son kontrol edilen hesap özetinin kapanış bakiyesi ile defterin o anda beklediği tutar arasındaki farktır; kapanış bakiyesi olmayan bir özet hata sayılır, hiçbir zaman tutuyor sayılmaz.",
    en: "Accounts sharing an IBAN are one line. The difference is the last checked statement's closing balance less what the ledger expected then; a statement without a closing balance is an error, never balanced.",
  },
  iban: { tr: "IBAN", en: "IBAN" },
  accounts: { tr: "Hesaplar", en: "Accounts" },
  expected: { tr: "Defterin beklediği (şimdi)", en: "Ledger expects (now)" },
  lastStatement: { tr: "Son özetin kapanışı", en: "Last statement's closing" },
  statementEnd: { tr: "Özetin sonu", en: "Statement's end" },
  difference: { tr: "Fark", en: "Difference" },
  state: { tr: "Durum", en: "State" },
  explain: { tr: "Açıklama", en: "Explanation" },
  explainOf: { tr: "Açıklama — {iban}", en: "Explanation — {iban}" },
  noAccounts: { tr: "Henüz banka hesabı yok.", en: "No bank account yet." },
  checkTitle: { tr: "Son kontrol: {iban}", en: "Last check: {iban}" },
  checkNone: {
    tr: "Bu hesabın hiçbir özeti henüz kontrol edilmedi.",
    en: "No statement of this account has been checked yet.",
  },
  bankClosing: { tr: "Bankanın kapanış bakiyesi", en: "Bank's closing balance" },
  expectedThen: { tr: "Defterin o anda beklediği", en: "Ledger expected then" },
  unposted: { tr: "Deftere işlenmemiş banka hareketleri", en: "Bank lines the ledger does not hold" },
  unbanked: { tr: "Bankada görülmemiş kayıtlar", en: "Postings the bank has not shown" },
  unexplained: { tr: "Açıklanamayan kalan", en: "Unexplained rest" },
  unexplainedHelp: {
    tr: "Yukarıdakilerin açıklamadığı kısım: çoğunlukla deftere girilmemiş bir açılış bakiyesi ya da 35 günden eski farklar.",
    en: "What the above does not explain: most often an opening balance not set in the ledger, or gaps older than 35 days.",
  },
  countShown: {
    tr: "{count} kayıt, ilk {shown} tanesi gösteriliyor",
    en: "{count} in all, the first {shown} shown",
  },
  closeCheck: { tr: "Açıklamayı kapat", en: "Close the explanation" },
  booked: { tr: "Tarih", en: "Booked" },
  amount: { tr: "Tutar", en: "Amount" },
  description: { tr: "Banka açıklaması", en: "Description" },
  key: { tr: "Kayıt anahtarı", en: "Posting key" },
  at: { tr: "Zaman", en: "Time" },
  backToBalances: { tr: "← Bakiyeler", en: "← Balances" },
  from: { tr: "Başlangıç", en: "From" },
  to: { tr: "Bitiş", en: "To" },
  show: { tr: "Göster", en: "Show" },
  daysHelp: {
    tr: "Türkiye günleri. Her tutar bakiyeyi nasıl değiştirdiyse o işaretle yazılır: açılış ile hareketlerin toplamı kapanışı verir.",
    en: "Türkiye's days. Each figure is signed as it moved the balance: the opening plus the movements is the closing.",
  },
  date: { tr: "Gün", en: "Day" },
  opening: { tr: "Açılış", en: "Opening" },
  deposits: { tr: "Yatırımlar", en: "Deposits" },
  withdrawals: { tr: "Çekimler", en: "Withdrawals" },
  commissions: { tr: "Komisyonlar", en: "Commissions" },
  returns: { tr: "İadeler", en: "Returns" },
  settlements: { tr: "Firmaya ödemeler", en: "Settlements" },
  adjustments: { tr: "Düzeltmeler", en: "Adjustments" },
  opening_balance: { tr: "Açılış bakiyesi", en: "Opening balance" },
  other: { tr: "Diğer", en: "Other" },
  closing: { tr: "Kapanış", en: "Closing" },
  csv: { tr: "CSV indir", en: "Download CSV" },
  csvExcel: { tr: "Excel için CSV", en: "CSV for Excel" },
  csvExcelHint: {
    tr: "Türkçe Excel'de çift tıklayınca doğru açılır: noktalı virgül ve ondalık virgül.",
    en: "Opens right on a double click in a Turkish Excel: semicolons and decimal commas.",
  },
  dayPostings: { tr: "{date} günündeki kayıtlar", en: "Postings of {date}" },
  openDay: { tr: "{date} gününün kayıtları", en: "{date}: the day's postings" },
  dayCsv: { tr: "Günün kayıtları (CSV)", en: "The day's postings (CSV)" },
  dayCsvExcel: { tr: "Günün kayıtları (Excel için CSV)", en: "The day's postings (CSV for Excel)" },
  noPostings: { tr: "Bu gün kayıt yok.", en: "No posting that day." },
  kind: { tr: "Tür", en: "Kind" },
  memo: { tr: "Not", en: "Memo" },
  more: { tr: "Sonraki kayıtlar", en: "Next postings" },
} satisfies WordTable;

/** A bank account against the ledger: `balanced` and the errors said apart. */
export const ACCOUNT_STATE_WORDS = {
  balanced: { tr: "Tutuyor", en: "Balanced" },
  difference: { tr: "⚠ Fark var", en: "⚠ Difference" },
  no_closing_balance: {
    tr: "⚠ Özette kapanış bakiyesi yok: kontrol edilemedi",
    en: "⚠ The statement gives no closing balance: not checked",
  },
  not_checked: { tr: "Henüz özet kontrol edilmedi", en: "No statement checked yet" },
  no_iban: {
    tr: "Defterin tanıdığı bir IBAN yok: parası askıda bekler",
    en: "No IBAN the ledger can name: its money waits in suspense",
  },
} satisfies WordTable<BankAccountState>;

/** What caused a posting (src/domain/ledger.ts POSTING_KINDS). */
export const POSTING_KIND_WORDS = {
  deposit_approved: { tr: "Yatırım onaylandı", en: "Deposit approved" },
  withdrawal_sent: { tr: "Çekim bankaya gönderildi", en: "Withdrawal sent" },
  withdrawal_paid: { tr: "Çekim ödendi", en: "Withdrawal paid" },
  withdrawal_returned: { tr: "Çekim geri döndü", en: "Withdrawal returned" },
  line_held: { tr: "Sahipsiz banka hareketi", en: "Bank line held for nobody" },
  refund_due: { tr: "Ödeyene iade borcu", en: "Refund due" },
  refund_paid: { tr: "Ödeyene iade", en: "Refund paid" },
  bank_fee: { tr: "Banka masrafı", en: "Bank fee" },
  settlement: { tr: "Firmaya ödeme", en: "Settlement" },
  adjustment: { tr: "Düzeltme", en: "Adjustment" },
  opening_balance: { tr: "Açılış bakiyesi", en: "Opening balance" },
  correction: { tr: "Düzeltme kaydı", en: "Correction" },
} satisfies WordTable<PostingKind>;

export type BW = (key: keyof typeof BALANCE_WORDS, values?: Record<string, string | number>) => string;

/** The screen's words in `lang`, with their `{places}` filled. */
export const balanceWords =
  (lang: Lang): BW =>
  (key, values) =>
    fill(BALANCE_WORDS[key][lang], values ?? {});

export const accountStateText = (state: string, lang: Lang) =>
  wordsIn(ACCOUNT_STATE_WORDS, state, lang) ?? state;
export const postingKindText = (kind: string, lang: Lang) => wordsIn(POSTING_KIND_WORDS, kind, lang) ?? kind;

/** Every table of words above, for the translations test (test/unit/translations.test.ts). */
export const BALANCE_TABLES = { BALANCE_WORDS, ACCOUNT_STATE_WORDS, POSTING_KIND_WORDS };
