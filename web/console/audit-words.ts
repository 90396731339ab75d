/**
 * The audit log in words: what happened ("Hesap devre dışı bırakıldı"), each changed field by its
 * name on the screens ("Etkin: evet → hayır"), not the stored keys and 0/1. The stored action stays
 * the filter's value and the row's title, so that a line can still be looked up in the admin API.
 * A key this table does not know (an action added later) is shown as it is stored.
 */
import { formatMinor } from "../../src/domain/money.js";
import { money2, when } from "./ui";
import { type Lang, type WordTable, wordsIn } from "./words";

const ACTIONS: WordTable = {
  "transaction.approve": { tr: "İşlem onaylandı", en: "Transaction approved" },
  "transaction.reject": { tr: "İşlem reddedildi", en: "Transaction rejected" },
  "transaction.national_id_viewed": {
    tr: "TC kimlik numarasının tamamı görüntülendi",
    en: "Full national id viewed",
  },
  "transaction.paying": { tr: "Çekim ödenmeye başlandı", en: "Payout marked as being paid" },
  "transaction.paying_released": {
    tr: "Çekimin ödeme işareti kaldırıldı",
    en: "Payout's paying mark released",
  },
  "transactions.exported": { tr: "İşlemler dışa aktarıldı", en: "Transactions exported" },
  "firm.create": { tr: "Firma eklendi", en: "Firm added" },
  "firm.update": { tr: "Firma değiştirildi", en: "Firm changed" },
  "firm.rotate_secret": { tr: "Firmanın gizli anahtarı yenilendi", en: "Firm's secret key renewed" },
  "firm.pending_bound_reached": {
    tr: "Firma bekleyen işlem sınırına ulaştı",
    en: "Firm reached its pending bound",
  },
  "provider.create": { tr: "Sağlayıcı eklendi", en: "Provider added" },
  "provider.update": { tr: "Sağlayıcı değiştirildi", en: "Provider changed" },
  "channel.create": { tr: "Kanal eklendi", en: "Channel added" },
  "channel.update": { tr: "Kanal değiştirildi", en: "Channel changed" },
  "channel.rotate_secret": { tr: "Kanalın gizli anahtarı yenilendi", en: "Channel's secret key renewed" },
  "channel.breaker_open": {
    tr: "Kanal art arda hatalar yüzünden durduruldu",
    en: "Channel paused after failures",
  },
  "channel.breaker_close": { tr: "Kanal yeniden açıldı", en: "Channel resumed" },
  "account.create": { tr: "Hesap eklendi", en: "Account added" },
  "account.update": { tr: "Hesap değiştirildi", en: "Account changed" },
  "account.feed_secret": { tr: "Hesabın canlı akış anahtarı değişti", en: "Account's feed secret changed" },
  "ban.add": { tr: "Kullanıcı engellendi", en: "User banned" },
  "ban.remove": { tr: "Kullanıcının engeli kaldırıldı", en: "User unbanned" },
  "operator.create": { tr: "Operatör eklendi", en: "Operator added" },
  "operator.update": { tr: "Operatör değiştirildi", en: "Operator changed" },
  "operator.password": { tr: "Operatör parolasını değiştirdi", en: "Operator changed their password" },
  "operator.second_factor": { tr: "İki adımlı giriş değişti", en: "Two-step sign-in changed" },
  "operator.recovery_codes": { tr: "Yeni kurtarma kodları alındı", en: "New recovery codes made" },
  "operator.recovery_code_used": {
    tr: "Kurtarma koduyla giriş yapıldı",
    en: "Signed in with a recovery code",
  },
  "operator.login": { tr: "Giriş yapıldı", en: "Signed in" },
  "operator.login_failed": { tr: "Hatalı giriş denemesi", en: "Failed sign-in" },
  "operator.locked": { tr: "Giriş kilitlendi", en: "Sign-in locked" },
  "operator.logout": { tr: "Çıkış yapıldı", en: "Signed out" },
  "callback.redeliver": { tr: "Bildirim yeniden gönderildi", en: "Callback sent again" },
  "callback.redeliver_failed": {
    tr: "Bildirim yeniden gönderilemedi",
    en: "Callback could not be sent again",
  },
  "statement_line.typed": { tr: "Hesap hareketi elle girildi", en: "Statement line typed by hand" },
  "statement_line.not_ours": {
    tr: "Hesap hareketi bizim değil olarak işaretlendi",
    en: "Statement line marked not ours",
  },
  "store.rotate_master_key": { tr: "Ana anahtar yenilendi", en: "Master key rotated" },
};

/** An update that only switches `active` says which way: the question an audit is read for. */
const ACTIVATED: WordTable = {
  "account.update": { tr: "Hesap etkinleştirildi", en: "Account activated" },
  "firm.update": { tr: "Firma etkinleştirildi", en: "Firm activated" },
  "channel.update": { tr: "Kanal etkinleştirildi", en: "Channel activated" },
  "operator.update": { tr: "Operatör etkinleştirildi", en: "Operator activated" },
};
const DEACTIVATED: WordTable = {
  "account.update": { tr: "Hesap devre dışı bırakıldı", en: "Account deactivated" },
  "firm.update": { tr: "Firma devre dışı bırakıldı", en: "Firm deactivated" },
  "channel.update": { tr: "Kanal devre dışı bırakıldı", en: "Channel deactivated" },
  "operator.update": { tr: "Operatör devre dışı bırakıldı", en: "Operator deactivated" },
};

const ENTITIES: WordTable = {
  transaction: { tr: "İşlem", en: "Transaction" },
  transactions: { tr: "İşlemler", en: "Transactions" },
  firm: { tr: "Firma", en: "Firm" },
  provider: { tr: "Sağlayıcı", en: "Provider" },
  channel: { tr: "Kanal", en: "Channel" },
  account: { tr: "Hesap", en: "Account" },
  ban: { tr: "Engel", en: "Ban" },
  operator: { tr: "Operatör", en: "Operator" },
  callback: { tr: "Bildirim", en: "Callback" },
  statement_line: { tr: "Hesap hareketi", en: "Statement line" },
  store: { tr: "Veri deposu", en: "Store" },
};

const FIELDS: WordTable = {
  active: { tr: "Etkin", en: "Active" },
  name: { tr: "Ad", en: "Name" },
  kind: { tr: "Tür", en: "Kind" },
  code: { tr: "Kod", en: "Code" },
  url: { tr: "Adres", en: "URL" },
  email: { tr: "E-posta", en: "Email" },
  role: { tr: "Rol", en: "Role" },
  status: { tr: "Durum", en: "Status" },
  amount: { tr: "Tutar", en: "Amount" },
  original_amount: { tr: "İstenen tutar", en: "Amount asked for" },
  note: { tr: "Not", en: "Note" },
  paying: { tr: "Ödeyen operatör", en: "Paying operator" },
  provider_id: { tr: "Sağlayıcı", en: "Provider" },
  callback_url: { tr: "Bildirim adresi", en: "Callback URL" },
  auto_cancel_minutes: { tr: "Otomatik iptal (dk)", en: "Auto-cancel (min)" },
  api_key: { tr: "API anahtarı", en: "API key" },
  secret: { tr: "Gizli anahtar", en: "Secret key" },
  feed_secret: { tr: "Canlı akış anahtarı", en: "Feed secret" },
  password: { tr: "Parola", en: "Password" },
  second_factor: { tr: "İki adımlı giriş", en: "Two-step sign-in" },
  webhook_url: { tr: "Bildirim adresi", en: "Webhook URL" },
  legacy_http: { tr: "Şifresiz http'ye izin", en: "Plain http allowed" },
  callback_middle_name: { tr: "Bildirimde ikinci ad", en: "Middle name in callbacks" },
  deposit_min: { tr: "En az yatırım", en: "Minimum deposit" },
  deposit_max: { tr: "En çok yatırım", en: "Maximum deposit" },
  deposits_open: { tr: "Yatırım alıyor", en: "Takes deposits" },
  withdrawals_open: { tr: "Çekim alıyor", en: "Takes withdrawals" },
  rate_limit_per_second: { tr: "Saniyede istek sınırı", en: "Requests per second" },
  sandbox: { tr: "Test ortamı", en: "Sandbox" },
  reconcile_auto: { tr: "Ekstreyle kendiliğinden onay", en: "Auto-approve from statements" },
  reconcile_by_name: { tr: "Adla eşleştirme", en: "Match by name" },
  answer_payment_code: { tr: "Ödeme kodu yanıtta", en: "Payment code in answers" },
  max_pending_count: { tr: "En çok bekleyen işlem", en: "Most pending transactions" },
  max_pending_amount: { tr: "En çok bekleyen tutar", en: "Most pending amount" },
  max_cap_share: { tr: "Günlük sınır payı (%)", en: "Share of daily cap (%)" },
  display_name: { tr: "Ödeme sayfasında görünen ad", en: "Name on the payment page" },
  usual_amount_max: { tr: "Olağan en yüksek tutar", en: "Usual highest amount" },
  bank_name: { tr: "Banka", en: "Bank" },
  holder_name: { tr: "Hesap sahibi", en: "Holder" },
  iban: { tr: "IBAN", en: "IBAN" },
  min_amount: { tr: "En az tutar", en: "Minimum amount" },
  max_amount: { tr: "En çok tutar", en: "Maximum amount" },
  daily_cap: { tr: "Günlük sınır", en: "Daily cap" },
  channel_id: { tr: "Kanal", en: "Channel" },
  bank_code: { tr: "Banka kodu", en: "Bank code" },
  feed_silence_minutes: { tr: "Sessizlik uyarısı (dk)", en: "Silence alert (min)" },
  timeout_ms: { tr: "Zaman aşımı (ms)", en: "Timeout (ms)" },
  failed_logins: { tr: "Hatalı giriş sayısı", en: "Failed sign-ins" },
  locked_until: { tr: "Kilitli olduğu süre", en: "Locked until" },
  known_device: { tr: "Bilinen tarayıcı", en: "Known browser" },
  banned: { tr: "Engelli", en: "Banned" },
  ip: { tr: "IP adresi", en: "IP address" },
  recovery_codes_left: { tr: "Kalan kurtarma kodu", en: "Recovery codes left" },
  user_id: { tr: "Kullanıcı no", en: "User id" },
  firm_id: { tr: "Firma", en: "Firm" },
  reference: { tr: "Referans", en: "Reference" },
  rows: { tr: "Satır", en: "Rows" },
  format: { tr: "Biçim", en: "Format" },
  created_at: { tr: "Oluşturulma", en: "Created" },
  updated_at: { tr: "Güncelleme", en: "Updated" },
};

/** Columns stored as 0/1 (SQLite) or true/false: shown as yes or no. */
const YES_NO = new Set([
  "active",
  "legacy_http",
  "callback_middle_name",
  "deposits_open",
  "withdrawals_open",
  "sandbox",
  "reconcile_auto",
  "reconcile_by_name",
  "answer_payment_code",
  "known_device",
  "banned",
]);

/** Secrets, recorded only as the words "set", "rotated" and "removed" (store/audited.ts). */
const SECRETS = new Set(["secret", "feed_secret", "password", "second_factor"]);

/** Columns the log keeps in minor units (kuruş): shown as amounts. */
const MONEY = new Set([
  "amount",
  "original_amount",
  "min_amount",
  "max_amount",
  "deposit_min",
  "deposit_max",
  "daily_cap",
  "max_pending_amount",
  "usual_amount_max",
]);

/** Epoch milliseconds: shown as a local date and time. */
const TIMES = new Set(["created_at", "updated_at", "locked_until"]);

/** The words the log stores for a secret, and a status's. */
const VALUES: WordTable = {
  set: { tr: "tanımlandı", en: "set" },
  rotated: { tr: "yenilendi", en: "renewed" },
  removed: { tr: "kaldırıldı", en: "removed" },
  pending: { tr: "bekliyor", en: "pending" },
  approved: { tr: "onaylandı", en: "approved" },
  rejected: { tr: "reddedildi", en: "rejected" },
  admin: { tr: "yönetici", en: "admin" },
  operator: { tr: "operatör", en: "operator" },
  viewer: { tr: "izleyici", en: "viewer" },
};

/** A stored yes or no (a 0/1 or true/false column). */
const YES_NO_WORDS = {
  yes: { tr: "evet", en: "yes" },
  no: { tr: "hayır", en: "no" },
} as const satisfies WordTable;

/** The tables, for the test that holds every table to both languages. */
export const AUDIT_TABLES = { ACTIONS, ACTIVATED, DEACTIVATED, ENTITIES, FIELDS, VALUES, YES_NO_WORDS };

/** What one audit row records, as a sentence. */
export function actionText(
  action: string,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  lang: Lang,
): string {
  const keys = Object.keys(after ?? {});
  if (Object.hasOwn(ACTIVATED, action) && keys.length === 1 && keys[0] === "active" && after) {
    const on = isYes(after.active);
    const switched = on === null ? undefined : wordsIn(on ? ACTIVATED : DEACTIVATED, action, lang);
    if (switched !== undefined && (before === null || isYes(before.active) !== on)) return switched;
  }
  return actionName(action, lang);
}

/** Every action the log writes, for the filter's choices. */
export const auditActions = Object.keys(ACTIONS);

/** An action's words alone (the filter's choices). */
export const actionName = (action: string, lang: Lang) => wordsIn(ACTIONS, action, lang) ?? action;

/** Every kind of thing the log is about, for the filter's choices. */
export const auditEntities = Object.keys(ENTITIES);

export const entityName = (type: string, lang: Lang) => wordsIn(ENTITIES, type, lang) ?? type;

/** "Hesap #12", "İşlem #1234": what the row is about. */
export function entityText(type: string, id: string, lang: Lang): string {
  return `${entityName(type, lang)} #${id}`;
}

export function fieldText(key: string, lang: Lang): string {
  return wordsIn(FIELDS, key, lang) ?? key;
}

function isYes(v: unknown): boolean | null {
  if (v === true || v === 1 || v === "1") return true;
  if (v === false || v === 0 || v === "0") return false;
  return null;
}

/** A stored value in words: yes/no, an amount in TL, a time, a status or a secret's word. */
export function valueText(key: string, v: unknown, lang: Lang): string {
  if (v === null || v === undefined || v === "") return "—";
  if (YES_NO.has(key)) {
    const yes = isYes(v);
    if (yes !== null) return YES_NO_WORDS[yes ? "yes" : "no"][lang];
  }
  if (typeof v === "number" && Number.isSafeInteger(v) && MONEY.has(key))
    return `${money2(formatMinor(v))} TL`;
  if (typeof v === "number" && TIMES.has(key)) return when(new Date(v).toISOString(), lang);
  const words = typeof v === "string" ? wordsIn(VALUES, v, lang) : undefined;
  if (words !== undefined && (key === "status" || key === "role" || SECRETS.has(key))) return words;
  return typeof v === "string" ? v : JSON.stringify(v);
}
