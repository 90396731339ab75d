import type { RefusalCode } from "../../src/domain/refusal";
import { bareAmount, dottedThousands, readAmount } from "../../src/payment-page/browser/amount.js";
import type { T } from "./i18n";
import { amountInput, isAdmin, isAmountInput, money, money2, payerName, type Role } from "./ui";
import { fill, type Lang, type WordTable, wordsIn } from "./words";

/**
 * The words for every refusal the server can send the console, by its code (src/domain/refusal.ts),
 * a table of words (words.ts): the compiler asks for a row in both languages for each new code.
 * `{message}` is the server's own text, where it names what only it knows (a field, a file's
 * fault, who holds a payout).
 */
export const REFUSAL_WORDS: WordTable<RefusalCode> = {
  invalid_input: { tr: "Geçersiz giriş: {message}", en: "Invalid input: {message}" },
  invalid_json: {
    tr: "İstek okunamadı; sayfayı yenileyip yeniden deneyin.",
    en: "The request could not be read; reload the page and try again.",
  },
  invalid_id: { tr: "Geçersiz numara.", en: "Invalid number." },
  bad_request: { tr: "İstek anlaşılamadı.", en: "The request was not understood." },
  url_too_long: { tr: "Adres çok uzun.", en: "The address is too long." },
  invalid_content_length: { tr: "İstek okunamadı.", en: "The request could not be read." },
  bad_search: {
    tr: "Arama anlaşılamadı: numaraları, tutarı (ör. 1.250,50), adı (en çok 5 kelime) ve tarihleri kontrol edin.",
    en: "The search was not understood: check the numbers, the amount (e.g. 1.250,50), the name (at most 5 words) and the dates.",
  },
  not_found: { tr: "Bulunamadı.", en: "Not found." },
  body_too_large: { tr: "Gönderilen veri çok büyük.", en: "What was sent is too large." },
  unsupported_media_type: {
    tr: "Dosya türü desteklenmiyor: {message}",
    en: "File type not supported: {message}",
  },
  too_many_requests: { tr: "Çok fazla istek; biraz bekleyin.", en: "Too many requests; wait a moment." },
  internal_error: { tr: "Sunucuda bir hata oluştu; yeniden deneyin.", en: "The server failed; try again." },
  login_required: { tr: "Oturum sona erdi; yeniden giriş yapın.", en: "Your session ended; sign in again." },
  csrf_failed: {
    tr: "Oturum doğrulanamadı; sayfayı yenileyin.",
    en: "The session could not be checked; reload the page.",
  },
  role_not_allowed: { tr: "Rolünüz bu işleme izin vermiyor.", en: "Your role does not allow this." },
  login_not_json: { tr: "Giriş bu sayfadan yapılmalı.", en: "Sign in from this page." },
  wrong_login: { tr: "E-posta veya parola yanlış.", en: "Wrong email or password." },
  login_locked: {
    tr: "Çok fazla hatalı giriş. Daha önce giriş yaptığınız bir tarayıcıdan deneyin, bir yöneticiden kilidi açmasını isteyin ya da 15 dakika sonra yeniden deneyin.",
    en: "Too many failed logins. Sign in from a browser you have used before, ask an admin to unlock your account, or try again in 15 minutes.",
  },
  login_throttled: {
    tr: "Bu adresten çok fazla hatalı giriş yapıldı. 15 dakika sonra deneyin.",
    en: "Too many failed logins from your address. Try again in 15 minutes.",
  },
  sign_in_busy: {
    tr: "Giriş şu anda çok yoğun. Birkaç saniye sonra yeniden deneyin.",
    en: "Sign-in is busy right now. Try again in a few seconds.",
  },
  second_factor_code_needed: {
    tr: "Doğrulama uygulamasındaki kodu girin.",
    en: "Enter the code from your authenticator app.",
  },
  wrong_second_factor_code: {
    tr: "Kod yanlış ya da daha önce kullanılmış.",
    en: "Wrong or already used code.",
  },
  second_factor_setup_required: {
    tr: "Bu konsol iki adımlı girişi zorunlu tutuyor: önce onu kurun.",
    en: "This console requires two-step sign-in: set it up first.",
  },
  invalid_admin_token: { tr: "Yönetim anahtarı geçersiz.", en: "Invalid admin token." },
  admin_token_throttled: {
    tr: "Bu adresten çok fazla yanlış yönetim anahtarı; sonra deneyin.",
    en: "Too many wrong admin tokens from your address; try again later.",
  },
  invalid_feed_signature: { tr: "Hesap akışının imzası geçersiz.", en: "Invalid feed signature." },
  server_stopping: {
    tr: "Sunucu kapanıyor; konsol yeniden bağlanacak.",
    en: "The server is stopping; the console reconnects.",
  },
  too_many_live_connections: {
    tr: "Sunucuda çok fazla canlı bağlantı var; liste düzenli aralıklarla yenilenecek.",
    en: "Too many live connections on this server; the list is refreshed at intervals.",
  },
  too_many_live_connections_here: {
    tr: "Bu operatörün ya da oturumun çok fazla canlı bağlantısı var; liste düzenli aralıklarla yenilenecek.",
    en: "Too many live connections for this operator or session; the list is refreshed at intervals.",
  },
  operator_not_found: { tr: "Operatör bulunamadı.", en: "Operator not found." },
  operator_exists: {
    tr: "Bu e-postayla bir operatör zaten var.",
    en: "An operator with this email exists already.",
  },
  own_role_unchangeable: {
    tr: "Kendi rolünüzü ya da erişiminizi değiştiremezsiniz.",
    en: "You cannot change your own role or access.",
  },
  last_admin: { tr: "Son etkin yönetici kaldırılamaz.", en: "The last active admin cannot be removed." },
  wrong_password: { tr: "Mevcut parola yanlış.", en: "The current password is wrong." },
  password_locked: {
    tr: "Çok fazla yanlış deneme: oturumunuz kapatıldı; sonra yeniden deneyin.",
    en: "Too many wrong tries: you were signed out; try again later.",
  },
  wrong_password_or_code: { tr: "Parola ya da kod yanlış.", en: "The password or code is wrong." },
  second_factor_not_started: {
    tr: "Önce iki adımlı giriş kurulumunu başlatın.",
    en: "Start setting up two-step sign-in first.",
  },
  second_factor_off: { tr: "İki adımlı giriş kapalı.", en: "Two-step sign-in is off." },
  second_factor_on_already: {
    tr: "İki adımlı giriş zaten açık: önce kapatın.",
    en: "Two-step sign-in is on already: turn it off first.",
  },
  second_factor_required: {
    tr: "Bu konsol iki adımlı girişi zorunlu tutuyor: kapatılamaz (bir yönetici sıfırlayabilir).",
    en: "This console requires two-step sign-in: it cannot be turned off (an admin can reset it).",
  },
  transaction_not_found: { tr: "İşlem bulunamadı.", en: "Transaction not found." },
  callback_not_found: { tr: "Bildirim bulunamadı.", en: "Callback not found." },
  invalid_amount: {
    tr: "tutar geçersiz: sıfırdan büyük, en çok iki ondalıklı bir tutar girin (ör. 1.250,50).",
    en: "amount must be a decimal amount greater than 0 with at most 2 decimals",
  },
  above_asked_needs_admin: {
    tr: "talep edilenden yüksek bir tutarla onay için yönetici gerekir; talep edilen tutar ya da daha azı onaylanabilir",
    en: "approving more than the amount asked for needs an admin; the amount asked for or less can be approved",
  },
  already_approved: {
    tr: "bu işleme zaten karar verilmiş (durum: onaylandı).",
    en: "transaction is not pending (status: approved); it was decided already",
  },
  already_rejected: {
    tr: "bu işleme zaten karar verilmiş (durum: reddedildi).",
    en: "transaction is not pending (status: rejected); it was decided already",
  },
  amount_on_withdrawal: {
    tr: "Yalnız bir yatırım başka bir tutarla onaylanabilir.",
    en: "Only a deposit can be approved with another amount.",
  },
  test_firm_decides_itself: {
    tr: "Test firmasının işlemlerine firmanın kendisi karar verir (test yardımcılarıyla).",
    en: "A test firm's transactions are decided by the firm itself, with the sandbox helpers.",
  },
  not_pending_withdrawal: {
    tr: "Yalnız bekleyen bir çekim ödeniyor olarak işaretlenebilir.",
    en: "Only a pending withdrawal can be marked as being paid.",
  },
  paid_out_elsewhere: {
    tr: "Başka bir operatör ödüyor: {message}",
    en: "Another operator is paying it out: {message}",
  },
  no_callback_yet: {
    tr: "İşlem bekliyor: henüz bildirim yok.",
    en: "The transaction is pending: no callback yet.",
  },
  provider_not_found: { tr: "Sağlayıcı bulunamadı.", en: "Provider not found." },
  firm_not_found: { tr: "Firma bulunamadı.", en: "Firm not found." },
  account_not_found: { tr: "Hesap bulunamadı.", en: "Account not found." },
  channel_not_found: { tr: "Kanal bulunamadı.", en: "Channel not found." },
  channel_exists: { tr: "Bu kodla bir kanal zaten var.", en: "A channel with this code exists already." },
  http_channel_needs_url: { tr: "Bir http kanalının adresi olmalı.", en: "An http channel needs a URL." },
  url_only_on_http_channel: {
    tr: "Yalnız bir http kanalının adresi olur.",
    en: "Only an http channel has a URL.",
  },
  secret_only_on_http_channel: {
    tr: "Yalnız bir http kanalının gizli anahtarı olur.",
    en: "Only an http channel has a secret.",
  },
  channel_url_not_https: {
    tr: "Kanal adresi https olmalı (istekler ödeyenlerin adlarını ve IBAN'larını taşır).",
    en: "The channel URL must use https (asks carry payers' names and IBANs).",
  },
  url_not_allowed: {
    tr: "Bu adrese izin verilmiyor (yerel ya da özel ağ adresi).",
    en: "This address is not allowed (a local or private network address).",
  },
  provider_url_kind: {
    tr: "Yalnız platform ve toplayıcı sağlayıcıların merkezi bildirim adresi olur.",
    en: "Only platform and aggregator providers have a central callback URL.",
  },
  min_above_max: { tr: "En az tutar en çok tutarı aşamaz.", en: "The minimum must not exceed the maximum." },
  statement_refused: { tr: "Hesap özeti reddedildi: {message}", en: "Statement refused: {message}" },
  statement_wrong_account: {
    tr: "Hesap özeti başka bir hesabın: {message}",
    en: "The statement is another account's: {message}",
  },
  statement_too_large: {
    tr: "Hesap özeti çok büyük: en çok 200 MB.",
    en: "The statement is too large: at most 200 MB.",
  },
  statement_line_not_found: { tr: "Hesap hareketi bulunamadı.", en: "Statement line not found." },
  no_deposit_on_line_account: {
    tr: "Bu hareketin hesabı gösterilmiş böyle bir yatırım yok.",
    en: "No such deposit was shown this line's account.",
  },
  line_is_debit: {
    tr: "Bu bir çıkış hareketi: hesabın kendi işlemi.",
    en: "This is a debit: the account's own.",
  },
  line_not_ours: { tr: "Bu hareket bizim değil olarak işaretli.", en: "This line is marked not ours." },
  line_after_cancellation: {
    tr: "Bu hareket iptal edilmiş bir yatırımı ödüyor: iade edin ya da işyerine sorun; hiçbir şeyi onaylamaz.",
    en: "This line paid a deposit that was already cancelled: refund it or ask the merchant; it approves nothing.",
  },
  line_closed: {
    tr: "Bu harekete zaten karar verilmiş: {message}",
    en: "This line is decided already: {message}",
  },
  line_currency: {
    tr: "TRY dışındaki bir hareket yatırım onaylamaz.",
    en: "A line not in TRY approves no deposit.",
  },
  test_firm_line: {
    tr: "Test firmasının yatırımları banka hareketiyle onaylanmaz.",
    en: "A test firm's deposits are never approved by a bank's line.",
  },
  line_settles_another: {
    tr: "Bu yatırımı başka bir hesap hareketi karşılıyor.",
    en: "Another statement line settles this deposit.",
  },
  line_moved: {
    tr: "Bu hareket bu arada karşılandı ya da işaretlendi.",
    en: "This line was settled or marked meanwhile.",
  },
  refund_needs_debit: {
    tr: "İadeyi ödeyen hareket bir çıkış olmalı.",
    en: "The line that pays a refund is a debit.",
  },
  refund_not_due: {
    tr: "Bu giriş kimseye iade borcu değil: bizim değil diye işaretlenmemiş ya da zaten iade edilmiş.",
    en: "This credit is owed back to nobody: not marked not ours, or refunded already.",
  },
  refund_amount_differs: {
    tr: "Çıkışın tutarı iadenin tutarı değil.",
    en: "The debit's amount is not the refund's.",
  },
  line_booked_before_deposit: {
    tr: "Hareket yatırımdan önce kaydedilmiş: bununla onay için yönetici gerekir. {message}",
    en: "The line was booked before the deposit was made: approving with it needs an admin. {message}",
  },
  decided_meanwhile: { tr: "İşleme bu arada karar verildi.", en: "The transaction was decided meanwhile." },
  ledger_key_reused: {
    tr: "Bu anahtar başka bir kayıt için kullanıldı; aynı isteği yineleyin ya da yeni bir anahtar verin.",
    en: "This key was used for another posting; repeat the same request, or give a new key.",
  },
  ledger_opening_set: {
    tr: "Bu hesabın açılış bakiyesi zaten girildi; değişiklik bir düzeltme kaydıyla yapılır.",
    en: "This account's opening balance is set already; a change is a correction.",
  },
  statement_imports_busy: {
    tr: "Şu anda başka hesap özetleri içeri alınıyor. Bir dakika sonra yeniden gönderin.",
    en: "Other statements are being imported right now. Send this one again in a minute.",
  },
  payout_batch_not_found: {
    tr: "Ödeme partisi bulunamadı.",
    en: "Payout batch not found.",
  },
  payout_in_batch: {
    tr: "Bu çekim bir ödeme partisinde: sonucu bankanın hesap hareketi belirler. {message}",
    en: "This withdrawal is in a payout batch: the bank's statement decides it. {message}",
  },
  payout_paid_by_statement: {
    tr: "Bu firmanın çekimleri banka hareketiyle onaylanır; elle onay için yönetici gerekir.",
    en: "This firm's withdrawals are approved by the bank's statement; approving one by hand needs an admin.",
  },
  payout_batch_empty: {
    tr: "Partiye konacak ödeme yok: {message}",
    en: "No payout can be put in a batch: {message}",
  },
  payout_account_unusable: {
    tr: "Bu hesaptan ödeme yapılamaz: {message}",
    en: "Payouts cannot be paid from this account: {message}",
  },
  payout_batch_stage: {
    tr: "Parti bu işlem için uygun aşamada değil: {message}",
    en: "The batch is not at a stage that allows this: {message}",
  },
  payout_second_same_operator: {
    tr: "İkinci onayı partiyi oluşturan dışında bir operatör vermeli.",
    en: "The second approval must come from an operator other than the one who made the batch.",
  },
  payout_second_needs_operator: {
    tr: "İkinci onay yalnızca konsolda oturum açmış bir operatörce verilir.",
    en: "Only an operator signed in to the console can give the second approval.",
  },
  payout_second_approval_pending: {
    tr: "Parti ikinci onayı bekliyor.",
    en: "The batch waits for a second operator's approval.",
  },
  payout_unknown_format: {
    tr: "Bilinmeyen dosya biçimi: {message}",
    en: "Unknown file format: {message}",
  },
  payout_template_invalid: {
    tr: "Şablon geçersiz: {message}",
    en: "The template is invalid: {message}",
  },
  payout_batch_contended: {
    tr: "Bu çekimleri başka partiler aldı (iki kez üst üste): bekleyenleri yenileyip yeniden deneyin.",
    en: "Other batchings took these withdrawals (twice in a row): read the waiting payouts again and retry.",
  },
  payout_attempt_not_found: {
    tr: "Ödeme bulunamadı.",
    en: "Payout not found.",
  },
  payout_flag_live: {
    tr: "Bu ödeme hâlâ gönderildi aşamasında: işareti banka ya da kanal yanıt verince kalkar.",
    en: "This payout is still sent: its flag lifts when the bank or the channel answers.",
  },
  payout_flag_changed: {
    tr: "Bu ödemenin işareti bu arada değişti: yeniden bakın.",
    en: "This payout's flag changed meanwhile: look at it again.",
  },
  payout_over_balance: {
    tr: "Firmanın bakiyesi (eksi bakiye limitiyle) bu çekimi karşılamıyor: bir yönetici onaylayabilir ya da firmaya eksi bakiye limiti tanımlayabilir.",
    en: "The firm's balance (with its overdraft) does not cover this withdrawal: an admin may approve it, or give the firm an overdraft.",
  },
};

/** The code of a refusal the server answered, when it sent one. */
export function refusalCode(answer: unknown): string | undefined {
  const code = (answer as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * The server's refusal in the console's language, by its code; one the console has no words for
 * (from a newer server) as the server said it, or its HTTP status when it said nothing.
 */
export function refusalIn(answer: unknown, status?: number, lang: Lang = consoleLang()): string {
  const code = refusalCode(answer);
  const message = (answer as { message?: unknown } | null)?.message;
  const text = typeof message === "string" ? message : "";
  const words = code === undefined ? undefined : wordsIn(REFUSAL_WORDS, code, lang);
  if (words !== undefined) return words.replace("{message}", text);
  return text || (status === undefined ? "" : String(status));
}

/** The console's language, as main.tsx puts it on the page (`<html lang>`). */
function consoleLang(): Lang {
  return typeof document !== "undefined" && document.documentElement.lang === "en" ? "en" : "tr";
}

/**
 * The amount an operator typed to approve with, read as the queue and the detail read it: none (the
 * amount asked for), one the console cannot read (said so before any confirmation shows a guess),
 * or an amount in the API's form, with the line that confirms it when it differs from the one asked
 * for (it moves money the merchant did not expect).
 */
export function typedApproval(
  tx: { id: number; amount: string },
  typed: string | undefined,
  t: T,
  /** Only an admin may approve more than was asked for (the server refuses it from others too). */
  role: Role,
): { ok: false; message: string } | { ok: true; amount?: string; change?: string } {
  // Nothing typed: the amount asked for. Anything typed that is not an amount ("TL" alone too, which
  // the button shows as "Onayla: ?") is refused, never taken as nothing.
  if (!typed?.trim()) return { ok: true };
  const amount = readAmount(typed);
  if (amount === null) {
    // "1.500": most likely 1500, possibly 1,5; said for what was typed, as the payment page says it.
    const bare = bareAmount(typed);
    const text = dottedThousands(bare)
      ? fill(t("dottedThousands"), { typed: bare, plain: bare.replace(".", "") })
      : t("badDecisionAmount");
    return { ok: false, message: `#${tx.id}: ${text}` };
  }
  const typedMinor = minorOf(amount);
  const askedMinor = minorOf(tx.amount);
  if (typedMinor === askedMinor) return { ok: true, amount };
  if (typedMinor > askedMinor && !isAdmin(role))
    return { ok: false, message: `#${tx.id} (${money(tx.amount)} TL): ${t("aboveAskedNeedsAdmin")}` };
  return { ok: true, amount, change: `#${tx.id}: ${money(tx.amount)} TL → ${money2(amount)} TL` };
}

/** The approve button's words: the amount typed, when there is one (`Onayla: 149,50 TL`, or `?`). */
export function approveLabel(typed: string | undefined, t: T): string {
  if (!typed?.trim()) return t("approve");
  return isAmountInput(typed)
    ? `${t("approveAs")} ${money2(amountInput(typed) ?? "")} TL`
    : `${t("approveAs")} ?`;
}

/** "1250.5" as 125050: amounts compared in whole kuruş, never as floating point. */
function minorOf(amount: string): number {
  const [whole = "0", cents = ""] = amount.split(".");
  return Number(whole) * 100 + Number(cents.padEnd(2, "0").slice(0, 2));
}

/**
 * A queue button's name for a screen reader: its visible words and the row it decides ("Onayla —
 * #1234, 1.500,00 TL, Ayşe Yılmaz"), so that a list of buttons is not twenty identical "Onayla".
 */
export function decisionName(
  visible: string,
  row: { id: number; amount: string; first_name: string; middle_name?: string | null; last_name: string },
): string {
  return `${visible} — #${row.id}, ${money(row.amount)} TL, ${payerName(row)}`;
}
