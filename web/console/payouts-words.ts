/**
 * The "Ödemeler" screen's words (payouts.tsx, payouts-batch.tsx), a table of words (words.ts), and
 * the server's payout texts in the console's language: stages and flags by their codes, and the few
 * sentences the payout views still send as English text (why a payout cannot be batched, why a
 * batch needs a second operator, a file's notices), shown as they came when these words do not know
 * them.
 */
import type { PayoutAttemptView, PayoutBatchView } from "../../src/payouts/views.js";
import { money2 } from "./ui";
import { fill, type Lang, type WordTable, wordsIn } from "./words";

export const PAYOUT_WORDS = {
  payouts: { tr: "Ödemeler", en: "Payouts" },
  payoutsIntro: {
    tr: "Bekleyen çekimler partiler halinde bankaya gönderilir: parti yapılır, gerekiyorsa ikinci bir operatör onaylar, dosyası indirilip bankaya yüklenir ve yüklendi olarak işaretlenir. Ödendiğini bankanın hesap hareketi kanıtlar.",
    en: "Waiting withdrawals go to the bank in batches: a batch is made, a second operator approves it where the rules ask, its file is downloaded and uploaded to the bank, and it is marked as uploaded. The bank's statement proves each payment.",
  },
  attention: { tr: "İlgilenilmesi gerekenler", en: "Needing attention" },
  attentionHelp: {
    tr: "Bankadan dönen ya da başarısız olan ödemeler: bilgileri kontrol edip yeniden partiye koyun ya da çekimi reddedin.",
    en: "Payouts the bank sent back or that failed: check them, then batch them again or reject the withdrawal.",
  },
  waiting: { tr: "Bekleyen ödemeler", en: "Payouts waiting" },
  waitingCount: { tr: "{n} ödeme, partiye konabilir: {ok}", en: "{n} payouts, may be batched: {ok}" },
  noWaiting: {
    tr: "Bekleyen ödeme yok (ödemeleri açık firmaların bekleyen çekimleri burada görünür).",
    en: "No payout waiting (pending withdrawals of firms paid in batches show here).",
  },
  notBatchable: { tr: "Partiye konamaz: {why}", en: "Cannot be batched: {why}" },
  lastAttempt: { tr: "Önceki deneme: {stage}", en: "Last attempt: {stage}" },
  bankReason: { tr: "bankanın nedeni: {reason}", en: "the bank's reason: {reason}" },
  openTransaction: { tr: "İşlem #{id} ayrıntısı", en: "Transaction #{id} details" },
  makeBatch: { tr: "Parti oluştur", en: "Make a batch" },
  makeBatchHelp: {
    tr: "Partiye konabilecek bekleyen ödemeler, en eskisi önce, seçilen hesaptan ödenmek üzere bir partiye konur.",
    en: "The waiting payouts that may be batched, oldest first, are put in one batch paid from the account chosen.",
  },
  payingAccount: { tr: "Ödeyen hesap", en: "Paying account" },
  chooseAccount: { tr: "Hesap seçin", en: "Choose an account" },
  firm: { tr: "Firma", en: "Firm" },
  allFirms: { tr: "Tümü", en: "All" },
  maxCount: { tr: "En çok kaç ödeme", en: "At most how many payouts" },
  batchMade: {
    tr: "Parti #{id} oluşturuldu: {n} ödeme, {total} TL.",
    en: "Batch #{id} made: {n} payouts, {total} TL.",
  },
  batchMadeSecond: {
    tr: "Parti #{id} oluşturuldu: {n} ödeme, {total} TL. İkinci bir operatörün onayını bekliyor.",
    en: "Batch #{id} made: {n} payouts, {total} TL. It waits for a second operator's approval.",
  },
  batches: { tr: "Partiler", en: "Batches" },
  openBatches: { tr: "Açık partiler", en: "Open batches" },
  noBatches: { tr: "Bu aşamada parti yok.", en: "No batch at this stage." },
  stageFilter: { tr: "Aşama", en: "Stage" },
  batchTitle: { tr: "Parti #{id}", en: "Batch #{id}" },
  openBatch: {
    tr: "Parti #{id} ayrıntısı — {total} TL, {n} ödeme",
    en: "Batch #{id} details — {total} TL, {n} payouts",
  },
  payoutsCount: { tr: "{n} ödeme", en: "{n} payouts" },
  backToPayouts: { tr: "← Ödemelere dön", en: "← Back to payouts" },
  approveBatch: { tr: "Partiyi onayla: #{id}, {total} TL", en: "Approve the batch: #{id}, {total} TL" },
  confirmApprove: {
    tr: "Parti #{id} ({n} ödeme, {total} TL) ikinci operatör olarak onaylansın mı?",
    en: "Approve batch #{id} ({n} payouts, {total} TL) as the second operator?",
  },
  approved: {
    tr: "Parti #{id} onaylandı: dosyası indirilebilir.",
    en: "Batch #{id} approved: its file may be downloaded.",
  },
  yourBatch: {
    tr: "Bu partiyi siz oluşturdunuz: ikinci onayı başka bir operatör vermeli.",
    en: "You made this batch: another operator gives the second approval.",
  },
  secondReason: { tr: "İkinci onay gerekçesi: {reason}", en: "Why a second approval: {reason}" },
  files: { tr: "Banka dosyası", en: "Bank file" },
  filesHelp: {
    tr: "Dosyayı indirmek ödemeyi göndermez: dosyayı bankanın toplu ödeme ekranına yükledikten sonra partiyi yüklendi olarak işaretleyin.",
    en: "Downloading the file sends nothing: mark the batch as uploaded after uploading its file to the bank's bulk payment screen.",
  },
  download: { tr: "İndir: {format}", en: "Download: {format}" },
  downloadName: {
    tr: "İndir: {format} — Parti #{id}",
    en: "Download: {format} — Batch #{id}",
  },
  downloaded: { tr: "Parti #{id}: {file} indirildi.", en: "Batch #{id}: {file} downloaded." },
  fileNotices: { tr: "Dikkat: {notices}", en: "Note: {notices}" },
  markSent: { tr: "Bankaya yüklendi olarak işaretle", en: "Mark as uploaded to the bank" },
  markSentName: {
    tr: "Bankaya yüklendi olarak işaretle — Parti #{id}, {total} TL",
    en: "Mark as uploaded to the bank — Batch #{id}, {total} TL",
  },
  confirmSent: {
    tr: "Parti #{id} ({n} ödeme, {total} TL) dosyası bankaya yüklendi mi? Yalnızca bankaya yükledikten sonra işaretleyin: indirmek göndermek değildir. Bir parti bir kez gönderildi olarak işaretlenir.",
    en: "Was batch #{id}'s file ({n} payouts, {total} TL) uploaded to the bank? Mark it only after uploading: downloading is not sending. A batch is marked sent once.",
  },
  sentDone: {
    tr: "Parti #{id} bankaya gönderildi olarak işaretlendi.",
    en: "Batch #{id} marked as sent to the bank.",
  },
  cancelBatch: { tr: "Partiyi iptal et", en: "Cancel the batch" },
  cancelName: { tr: "Partiyi iptal et — #{id}, {total} TL", en: "Cancel the batch — #{id}, {total} TL" },
  cancelNote: { tr: "İptal notu (isteğe bağlı)", en: "Cancellation note (optional)" },
  confirmCancel: {
    tr: "Parti #{id} ({n} ödeme, {total} TL) iptal edilsin mi? Ödemeleri yeniden beklemeye döner. Dosyası bankaya yüklendiyse iptal etmeyin.",
    en: "Cancel batch #{id} ({n} payouts, {total} TL)? Its payouts go back to waiting. Do not cancel it if its file was uploaded to the bank.",
  },
  cancelled: { tr: "Parti #{id} iptal edildi.", en: "Batch #{id} cancelled." },
  account: { tr: "Hesap", en: "Account" },
  total: { tr: "Toplam", en: "Total" },
  count: { tr: "Ödeme sayısı", en: "Payouts" },
  madeBy: { tr: "Oluşturan", en: "Made by" },
  approvedBy: { tr: "İkinci onay", en: "Second approval" },
  sentBy: { tr: "Gönderildi olarak işaretleyen", en: "Marked sent by" },
  stage: { tr: "Aşama", en: "Stage" },
  items: { tr: "Partideki ödemeler", en: "The batch's payouts" },
  paymentId: { tr: "Ödeme no", en: "Payment id" },
  payee: { tr: "Alıcı", en: "Payee" },
  method: { tr: "Yöntem", en: "Method" },
  reason: { tr: "Neden", en: "Reason" },
  flagged: { tr: "⚠ {flag}", en: "⚠ {flag}" },
  noIban: { tr: "IBAN yok", en: "No IBAN" },
} satisfies WordTable;

export type PayoutWord = keyof typeof PAYOUT_WORDS;
/** This screen's words in `lang`, with their `{places}` filled. */
export type PW = (key: PayoutWord, values?: Record<string, string | number>) => string;

export function payoutWords(lang: Lang): PW {
  return (key, values = {}) => fill(PAYOUT_WORDS[key][lang], values);
}

/** The batch stages, in the order a batch goes through them: the list's choices. */
export const BATCH_STAGES = ["second_approval", "batched", "sent", "closed", "cancelled"] as const;

export const BATCH_STAGE_WORDS = {
  second_approval: { tr: "İkinci onay bekliyor", en: "Waiting for a second approval" },
  batched: { tr: "Bankaya yüklenmeyi bekliyor", en: "Waiting to be uploaded to the bank" },
  sent: { tr: "Bankaya gönderildi", en: "Sent to the bank" },
  closed: { tr: "Kapandı", en: "Closed" },
  cancelled: { tr: "İptal edildi", en: "Cancelled" },
} satisfies WordTable<PayoutBatchView["stage"]>;

export const ATTEMPT_STAGE_WORDS = {
  second_approval: { tr: "İkinci onay bekliyor", en: "Waiting for a second approval" },
  batched: { tr: "Partide", en: "In a batch" },
  sent: { tr: "Gönderildi", en: "Sent" },
  paid: { tr: "Ödendi", en: "Paid" },
  returned: { tr: "Bankadan döndü", en: "Returned by the bank" },
  failed: { tr: "Başarısız", en: "Failed" },
  cancelled: { tr: "İptal edildi", en: "Cancelled" },
} satisfies WordTable<PayoutAttemptView["stage"]>;

/** Flags raised on an attempt for operators (src/store/payouts/payout-outcomes.ts). */
export const FLAG_WORDS = {
  returned_after_paid: {
    tr: "onaylandıktan sonra bankadan döndü: üye işyerine ödendi denmişti",
    en: "returned after it was approved: the merchant was told it was paid",
  },
  double_payment: {
    tr: "iki kez ödenmiş olabilir: kontrol edin",
    en: "may have been paid twice: check it",
  },
  overdue: {
    tr: "gönderildi ama bankadaki çıkışı hâlâ görünmüyor",
    en: "sent, but its debit has not shown on the statement yet",
  },
} satisfies WordTable;

/** The return reasons banks send most (ISO 20022 codes), said before the code itself. */
export const RETURN_REASON_WORDS = {
  AC01: { tr: "hesap numarası hatalı", en: "incorrect account number" },
  AC04: { tr: "hesap kapalı", en: "closed account" },
  AC06: { tr: "hesap bloke", en: "blocked account" },
  MS03: { tr: "neden belirtilmedi", en: "reason not specified" },
} satisfies WordTable;

/**
 * The sentences the payout views send in English (src/payouts/rules.ts NOT_BATCHABLE_WORDS, the
 * file's notices), matched whole; a sentence these words do not know is shown as it came.
 */
const SERVER_SENTENCES_TR: Readonly<Record<string, string>> = {
  "the IBAN is not a valid Turkish IBAN": "IBAN geçerli bir TR IBAN'ı değil",
  "the payee's name is empty": "alıcının adı boş",
  "the firm is inactive": "firma pasif",
  "an operator marked it as being paid by hand": "bir operatör elle ödediğini işaretledi",
  "a test firm's withdrawals are never paid out": "test firmasının çekimleri ödenmez",
  "this batch was marked sent already: uploading this file again pays it twice":
    "bu parti zaten gönderildi olarak işaretlendi: dosyayı yeniden yüklemek ödemeleri iki kez yapar",
  "made outside EFT hours (weekdays 08:30–17:30 in Türkiye): its EFT payouts go at the next opening":
    "EFT saatleri dışında oluşturuldu (hafta içi 08:30–17:30): EFT ödemeleri ilk açılışta gider",
};

/** A sentence of the server's in the console's language: English as sent, Turkish when known. */
export function serverSentence(text: string, lang: Lang): string {
  return lang === "tr" && Object.hasOwn(SERVER_SENTENCES_TR, text)
    ? (SERVER_SENTENCES_TR[text] ?? text)
    : text;
}

/**
 * Why a batch needs a second operator (src/payouts/rules.ts secondApprovalReason: "the batch's
 * total 105000.00 is above 100000.00"), with the amounts as the console writes money.
 */
export function secondReasonText(reason: string, lang: Lang): string {
  const m =
    /^(the batch's total|a payout of|the operator's batches today) (\d+\.\d{2}) is above (\d+\.\d{2})$/.exec(
      reason,
    );
  if (!m) return reason;
  const [, what = "", amount = "", limit = ""] = m;
  const whatTr = {
    "the batch's total": "partinin toplamı",
    "a payout of": "tek bir ödeme",
    "the operator's batches today": "operatörün bugünkü partileri",
  }[what];
  const [a, l] = [`${money2(amount)} TL`, `${money2(limit)} TL`];
  return lang === "tr" ? `${whatTr} ${a}, sınır ${l}` : `${what} ${a} is above ${l}`;
}

/** A bank's return reason: the words for a known code before it, else as the bank wrote it. */
export function returnReasonText(reason: string, lang: Lang): string {
  const code = reason.trim().slice(0, 4).toUpperCase();
  const words = wordsIn(RETURN_REASON_WORDS, code, lang);
  return words ? `${words} (${reason})` : reason;
}

/** Who made or moved a batch: a console operator by their email, another actor as recorded. */
export const actorText = (actor: string) => actor.replace(/^operator:/, "");

export const batchStageText = (stage: string, lang: Lang) => wordsIn(BATCH_STAGE_WORDS, stage, lang) ?? stage;
export const attemptStageText = (stage: string, lang: Lang) =>
  wordsIn(ATTEMPT_STAGE_WORDS, stage, lang) ?? stage;
export const flagText = (flag: string, lang: Lang) => wordsIn(FLAG_WORDS, flag, lang) ?? flag;
