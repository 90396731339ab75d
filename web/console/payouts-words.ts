/**
 * The "Ödemeler" screen's words (payouts.tsx, payouts-batch.tsx), a table of words (words.ts), and
 * the server's payout texts in the console's language, each by its code: stages, flags, why a payout
 * cannot be batched, why a batch needs a second operator, a file's notices, a release's outcomes. A
 * code these words do not know (a newer server's) shows the server's own words.
 */
import type { ReleaseCounts } from "../../src/payouts/channel-release.js";
import type { FileNotice } from "../../src/payouts/file-download.js";
import type {
  NotBatchable,
  PayoutAttemptView,
  PayoutBatchView,
  SecondRuleView,
  WaitingPayoutView,
} from "../../src/payouts/views.js";
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
  flaggedTitle: { tr: "İşaretli ödemeler", en: "Flagged payouts" },
  flaggedHelp: {
    tr: "Onaylandıktan sonra dönen, iki kez ödenmiş olabilecek, gecikmiş ya da kanalın yanıtı belirsiz ödemeler. Kontrol edin; sona ermiş bir ödemenin işaretini kontrolden sonra kaldırabilirsiniz.",
    en: "Payouts returned after approval, possibly paid twice, overdue, or with a channel's unclear answer. Check them; an ended payout's flag may be cleared after checking.",
  },
  openBatchOf: { tr: "Parti #{id} ayrıntısı", en: "Batch #{id} details" },
  clearFlag: { tr: "Kontrol ettim: işareti kaldır", en: "Checked: clear the flag" },
  clearFlagName: {
    tr: "Kontrol ettim: işareti kaldır — İşlem #{tx}, {flag}",
    en: "Checked: clear the flag — Transaction #{tx}, {flag}",
  },
  confirmClearFlag: {
    tr: "İşlem #{tx} ({amount} TL) işareti kaldırılsın mı? ({flag}) Yalnızca kontrol ettikten sonra kaldırın.",
    en: "Clear the flag of transaction #{tx} ({amount} TL)? ({flag}) Clear it only after checking.",
  },
  flagCleared: { tr: "İşlem #{tx}: işaret kaldırıldı.", en: "Transaction #{tx}: flag cleared." },
  methodService: {
    tr: "FAST/EFT, genel FAST sınırına göre gösteriliyor; parti ödeyen hesabın sınırını kullanır (aşağıda bir hesap seçince ona göre gösterilir).",
    en: "FAST/EFT is shown by the service-wide FAST limit; a batch uses its paying account's (choose an account below to see it by that one).",
  },
  methodAccount: {
    tr: "FAST/EFT, seçilen ödeyen hesabın FAST sınırına göre gösteriliyor.",
    en: "FAST/EFT is shown by the chosen paying account's FAST limit.",
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
  channel: { tr: "Ödeme kanalı", en: "Payout channel" },
  byChannel: { tr: "{channel} ödeme kanalıyla", en: "through payout channel {channel}" },
  releaseHelp: {
    tr: "Bu partinin hesabı bir ödeme kanalına bağlı: dosya yüklenmez, parti kanala gönderilir. Her ödeme bir kez gönderilir.",
    en: "This batch's account is on a payout channel: no file is uploaded, the batch is sent to the channel. Each payout is sent once.",
  },
  release: { tr: "Kanala gönder", en: "Send to the channel" },
  releaseName: {
    tr: "Kanala gönder — Parti #{id}, {total} TL",
    en: "Send to the channel — Batch #{id}, {total} TL",
  },
  confirmRelease: {
    tr: "Parti #{id} ({n} ödeme, {total} TL) {channel} ödeme kanalına gönderilsin mi? Gönderilen ödeme geri alınamaz.",
    en: "Send batch #{id} ({n} payouts, {total} TL) to payout channel {channel}? A payout sent cannot be taken back.",
  },
  released: {
    tr: "Parti #{id} {channel} kanalına gönderildi: {outcomes}.",
    en: "Batch #{id} sent to channel {channel}: {outcomes}.",
  },
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

/**
 * Flags raised on an attempt for operators (src/store/payouts/payout-outcomes.ts, payout-watch.ts,
 * src/reconciliation/payout-lines.ts).
 */
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
  channel_unknown: {
    tr: "ödeme kanalının yanıtı belirsiz: yeniden gönderilmez, durumu soruluyor",
    en: "the payout channel's answer was unclear: it is never sent again, its status is asked",
  },
  channel_mismatch: {
    tr: "ödeme kanalının yanıtı ödemeyle uyuşmuyor: kanalın sözüyle onaylanmaz",
    en: "the payout channel's answer does not match the payout: never approved on its word",
  },
} satisfies WordTable;

/** The return reasons banks send most (ISO 20022 codes), said before the code itself. */
export const RETURN_REASON_WORDS = {
  AC01: { tr: "hesap numarası hatalı", en: "incorrect account number" },
  AC04: { tr: "hesap kapalı", en: "closed account" },
  AC06: { tr: "hesap bloke", en: "blocked account" },
  MS03: { tr: "neden belirtilmedi", en: "reason not specified" },
} satisfies WordTable;

/** Why a payout cannot be batched, by its code (src/payouts/rules.ts NotBatchable). */
export const NOT_BATCHABLE_CODE_WORDS = {
  iban_invalid: { tr: "IBAN geçerli bir TR IBAN'ı değil", en: "the IBAN is not a valid Turkish IBAN" },
  payee_name_empty: { tr: "alıcının adı boş", en: "the payee's name is empty" },
  firm_inactive: { tr: "firma pasif", en: "the firm is inactive" },
  paying_by_hand: {
    tr: "bir operatör elle ödediğini işaretledi",
    en: "an operator marked it as being paid by hand",
  },
  test_firm: { tr: "test firmasının çekimleri ödenmez", en: "a test firm's withdrawals are never paid out" },
  over_balance: {
    tr: "firmanın bakiyesi (eksi bakiye limitiyle) bu ödemeyi karşılamıyor",
    en: "the firm's balance (with its overdraft) does not cover it",
  },
} satisfies WordTable<NotBatchable>;

/** What the server notes about a file, by its code (src/payouts/file-download.ts FileNotice). */
export const FILE_NOTICE_WORDS = {
  sent_already: {
    tr: "bu parti zaten gönderildi olarak işaretlendi: dosyayı yeniden yüklemek ödemeleri iki kez yapar",
    en: "this batch was marked sent already: uploading this file again pays it twice",
  },
  outside_eft_hours: {
    tr: "EFT saatleri dışında oluşturuldu (hafta içi 08:30–17:30): EFT ödemeleri ilk açılışta gider",
    en: "made outside EFT hours (weekdays 08:30–17:30 in Türkiye): its EFT payouts go at the next opening",
  },
} satisfies WordTable<FileNotice["code"]>;

/** Which two-person rule holds a batch (src/payouts/rules.ts SecondRule), amounts filled in. */
export const SECOND_RULE_WORDS = {
  batch_total: {
    tr: "partinin toplamı {amount}, sınır {limit}",
    en: "the batch's total {amount} is above {limit}",
  },
  payout: { tr: "tek bir ödeme {amount}, sınır {limit}", en: "a payout of {amount} is above {limit}" },
  operator_day: {
    tr: "operatörün bugünkü partileri {amount}, sınır {limit}",
    en: "the operator's batches today {amount} is above {limit}",
  },
} satisfies WordTable<SecondRuleView["code"]>;

/** What a payout channel's answers did to a released batch's payouts (src/payouts/channel-release.ts). */
export const RELEASE_OUTCOME_WORDS = {
  paid: { tr: "{n} ödendi", en: "{n} paid" },
  awaiting_statement: { tr: "{n} hesap hareketini bekliyor", en: "{n} awaiting the statement" },
  accepted: { tr: "{n} kabul edildi", en: "{n} accepted" },
  failed: { tr: "{n} reddedildi", en: "{n} refused" },
  returned: { tr: "{n} geri döndü", en: "{n} returned" },
  unknown: { tr: "{n} yanıtı belirsiz", en: "{n} with no clear answer" },
  mismatch: { tr: "{n} uyuşmuyor", en: "{n} mismatched" },
  moved: { tr: "{n} bu arada değişti", en: "{n} moved meanwhile" },
} satisfies WordTable<keyof ReleaseCounts>;

/** A payout's reason not to be batched: the code's words, else the server's words as they came. */
export function notBatchableText(p: WaitingPayoutView, lang: Lang): string {
  const words = p.not_batchable_code
    ? wordsIn(NOT_BATCHABLE_CODE_WORDS, p.not_batchable_code, lang)
    : undefined;
  return words ?? p.not_batchable ?? "";
}

/** A file's notice in the console's language: by its code, else as the server wrote it. */
export const fileNoticeText = (n: { code: string; message: string }, lang: Lang) =>
  wordsIn(FILE_NOTICE_WORDS, n.code, lang) ?? n.message;

/** Why a batch needs a second operator: its rule with the amounts as the console writes money. */
export function secondRuleText(
  b: Pick<PayoutBatchView, "second_rule" | "second_reason">,
  lang: Lang,
): string {
  const rule = b.second_rule;
  const words = rule ? wordsIn(SECOND_RULE_WORDS, rule.code, lang) : undefined;
  if (!rule || !words) return b.second_reason ?? "";
  return fill(words, { amount: `${money2(rule.amount)} TL`, limit: `${money2(rule.limit)} TL` });
}

/** A release's outcomes in words, the ones that happened only. */
export function releaseOutcomesText(counts: ReleaseCounts, lang: Lang): string {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => fill(wordsIn(RELEASE_OUTCOME_WORDS, k, lang) ?? `{n} ${k}`, { n }))
    .join(", ");
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

/** Every table of words above, for the translations test (test/unit/translations.test.ts). */
export const PAYOUT_TABLES = {
  PAYOUT_WORDS,
  BATCH_STAGE_WORDS,
  ATTEMPT_STAGE_WORDS,
  FLAG_WORDS,
  RETURN_REASON_WORDS,
  NOT_BATCHABLE_CODE_WORDS,
  FILE_NOTICE_WORDS,
  SECOND_RULE_WORDS,
  RELEASE_OUTCOME_WORDS,
};
