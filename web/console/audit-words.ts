/**
 * The audit log in words: what happened ("Hesap devre dışı bırakıldı"), each changed field by its
 * name on the screens ("Etkin: evet → hayır"), not the stored keys and 0/1. The stored action stays
 * the filter's value and the row's title, so that a line can still be looked up in the admin API.
 * A key this table does not know (an action added later) is shown as it is stored.
 */
import { formatMinor } from "../../src/domain/money.js";
import type { Lang } from "./i18n";
import { money2, when } from "./ui";

type Words = readonly [tr: string, en: string];

const ACTIONS: Record<string, Words> = {
  "transaction.approve": ["İşlem onaylandı", "Transaction approved"],
  "transaction.reject": ["İşlem reddedildi", "Transaction rejected"],
  "transaction.national_id_viewed": ["TC kimlik numarasının tamamı görüntülendi", "Full national id viewed"],
  "transaction.paying": ["Çekim ödenmeye başlandı", "Payout marked as being paid"],
  "transaction.paying_released": ["Çekimin ödeme işareti kaldırıldı", "Payout's paying mark released"],
  "transactions.exported": ["İşlemler dışa aktarıldı", "Transactions exported"],
  "firm.create": ["Firma eklendi", "Firm added"],
  "firm.update": ["Firma değiştirildi", "Firm changed"],
  "firm.rotate_secret": ["Firmanın gizli anahtarı yenilendi", "Firm's secret key renewed"],
  "firm.pending_bound_reached": ["Firma bekleyen işlem sınırına ulaştı", "Firm reached its pending bound"],
  "provider.create": ["Sağlayıcı eklendi", "Provider added"],
  "provider.update": ["Sağlayıcı değiştirildi", "Provider changed"],
  "channel.create": ["Kanal eklendi", "Channel added"],
  "channel.update": ["Kanal değiştirildi", "Channel changed"],
  "channel.rotate_secret": ["Kanalın gizli anahtarı yenilendi", "Channel's secret key renewed"],
  "channel.breaker_open": ["Kanal art arda hatalar yüzünden durduruldu", "Channel paused after failures"],
  "channel.breaker_close": ["Kanal yeniden açıldı", "Channel resumed"],
  "account.create": ["Hesap eklendi", "Account added"],
  "account.update": ["Hesap değiştirildi", "Account changed"],
  "account.feed_secret": ["Hesabın canlı akış anahtarı değişti", "Account's feed secret changed"],
  "ban.add": ["Kullanıcı engellendi", "User banned"],
  "ban.remove": ["Kullanıcının engeli kaldırıldı", "User unbanned"],
  "operator.create": ["Operatör eklendi", "Operator added"],
  "operator.update": ["Operatör değiştirildi", "Operator changed"],
  "operator.password": ["Operatör parolasını değiştirdi", "Operator changed their password"],
  "operator.second_factor": ["İki adımlı giriş değişti", "Two-step sign-in changed"],
  "operator.recovery_codes": ["Yeni kurtarma kodları alındı", "New recovery codes made"],
  "operator.recovery_code_used": ["Kurtarma koduyla giriş yapıldı", "Signed in with a recovery code"],
  "operator.login": ["Giriş yapıldı", "Signed in"],
  "operator.login_failed": ["Hatalı giriş denemesi", "Failed sign-in"],
  "operator.locked": ["Giriş kilitlendi", "Sign-in locked"],
  "operator.logout": ["Çıkış yapıldı", "Signed out"],
  "callback.redeliver": ["Bildirim yeniden gönderildi", "Callback sent again"],
  "callback.redeliver_failed": ["Bildirim yeniden gönderilemedi", "Callback could not be sent again"],
  "statement_line.typed": ["Hesap hareketi elle girildi", "Statement line typed by hand"],
  "statement_line.not_ours": [
    "Hesap hareketi bizim değil olarak işaretlendi",
    "Statement line marked not ours",
  ],
  "store.rotate_master_key": ["Ana anahtar yenilendi", "Master key rotated"],
};

/** An update that only switches `active` says which way: the question an audit is read for. */
const SWITCHED: Record<string, { on: Words; off: Words }> = {
  "account.update": {
    on: ["Hesap etkinleştirildi", "Account activated"],
    off: ["Hesap devre dışı bırakıldı", "Account deactivated"],
  },
  "firm.update": {
    on: ["Firma etkinleştirildi", "Firm activated"],
    off: ["Firma devre dışı bırakıldı", "Firm deactivated"],
  },
  "channel.update": {
    on: ["Kanal etkinleştirildi", "Channel activated"],
    off: ["Kanal devre dışı bırakıldı", "Channel deactivated"],
  },
  "operator.update": {
    on: ["Operatör etkinleştirildi", "Operator activated"],
    off: ["Operatör devre dışı bırakıldı", "Operator deactivated"],
  },
};

const ENTITIES: Record<string, Words> = {
  transaction: ["İşlem", "Transaction"],
  transactions: ["İşlemler", "Transactions"],
  firm: ["Firma", "Firm"],
  provider: ["Sağlayıcı", "Provider"],
  channel: ["Kanal", "Channel"],
  account: ["Hesap", "Account"],
  ban: ["Engel", "Ban"],
  operator: ["Operatör", "Operator"],
  callback: ["Bildirim", "Callback"],
  statement_line: ["Hesap hareketi", "Statement line"],
  store: ["Veri deposu", "Store"],
};

const FIELDS: Record<string, Words> = {
  active: ["Etkin", "Active"],
  name: ["Ad", "Name"],
  kind: ["Tür", "Kind"],
  code: ["Kod", "Code"],
  url: ["Adres", "URL"],
  email: ["E-posta", "Email"],
  role: ["Rol", "Role"],
  status: ["Durum", "Status"],
  amount: ["Tutar", "Amount"],
  original_amount: ["İstenen tutar", "Amount asked for"],
  note: ["Not", "Note"],
  paying: ["Ödeyen operatör", "Paying operator"],
  provider_id: ["Sağlayıcı", "Provider"],
  callback_url: ["Bildirim adresi", "Callback URL"],
  auto_cancel_minutes: ["Otomatik iptal (dk)", "Auto-cancel (min)"],
  api_key: ["API anahtarı", "API key"],
  secret: ["Gizli anahtar", "Secret key"],
  feed_secret: ["Canlı akış anahtarı", "Feed secret"],
  password: ["Parola", "Password"],
  second_factor: ["İki adımlı giriş", "Two-step sign-in"],
  webhook_url: ["Bildirim adresi", "Webhook URL"],
  legacy_http: ["Şifresiz http'ye izin", "Plain http allowed"],
  callback_middle_name: ["Bildirimde ikinci ad", "Middle name in callbacks"],
  deposit_min: ["En az yatırım", "Minimum deposit"],
  deposit_max: ["En çok yatırım", "Maximum deposit"],
  deposits_open: ["Yatırım alıyor", "Takes deposits"],
  withdrawals_open: ["Çekim alıyor", "Takes withdrawals"],
  rate_limit_per_second: ["Saniyede istek sınırı", "Requests per second"],
  sandbox: ["Test ortamı", "Sandbox"],
  reconcile_auto: ["Ekstreyle kendiliğinden onay", "Auto-approve from statements"],
  reconcile_by_name: ["Adla eşleştirme", "Match by name"],
  answer_payment_code: ["Ödeme kodu yanıtta", "Payment code in answers"],
  max_pending_count: ["En çok bekleyen işlem", "Most pending transactions"],
  max_pending_amount: ["En çok bekleyen tutar", "Most pending amount"],
  max_cap_share: ["Günlük sınır payı (%)", "Share of daily cap (%)"],
  display_name: ["Ödeme sayfasında görünen ad", "Name on the payment page"],
  usual_amount_max: ["Olağan en yüksek tutar", "Usual highest amount"],
  bank_name: ["Banka", "Bank"],
  holder_name: ["Hesap sahibi", "Holder"],
  iban: ["IBAN", "IBAN"],
  min_amount: ["En az tutar", "Minimum amount"],
  max_amount: ["En çok tutar", "Maximum amount"],
  daily_cap: ["Günlük sınır", "Daily cap"],
  channel_id: ["Kanal", "Channel"],
  bank_code: ["Banka kodu", "Bank code"],
  feed_silence_minutes: ["Sessizlik uyarısı (dk)", "Silence alert (min)"],
  timeout_ms: ["Zaman aşımı (ms)", "Timeout (ms)"],
  failed_logins: ["Hatalı giriş sayısı", "Failed sign-ins"],
  locked_until: ["Kilitli olduğu süre", "Locked until"],
  known_device: ["Bilinen tarayıcı", "Known browser"],
  banned: ["Engelli", "Banned"],
  ip: ["IP adresi", "IP address"],
  recovery_codes_left: ["Kalan kurtarma kodu", "Recovery codes left"],
  user_id: ["Kullanıcı no", "User id"],
  firm_id: ["Firma", "Firm"],
  reference: ["Referans", "Reference"],
  rows: ["Satır", "Rows"],
  format: ["Biçim", "Format"],
  created_at: ["Oluşturulma", "Created"],
  updated_at: ["Güncelleme", "Updated"],
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
const VALUES: Record<string, Words> = {
  set: ["tanımlandı", "set"],
  rotated: ["yenilendi", "renewed"],
  removed: ["kaldırıldı", "removed"],
  pending: ["bekliyor", "pending"],
  approved: ["onaylandı", "approved"],
  rejected: ["reddedildi", "rejected"],
  admin: ["yönetici", "admin"],
  operator: ["operatör", "operator"],
  viewer: ["izleyici", "viewer"],
};

const pick = (w: Words, lang: Lang) => (lang === "tr" ? w[0] : w[1]);

/** What one audit row records, as a sentence. */
export function actionText(
  action: string,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  lang: Lang,
): string {
  const switched = SWITCHED[action];
  const keys = Object.keys(after ?? {});
  if (switched && keys.length === 1 && keys[0] === "active" && after) {
    const on = isYes(after.active);
    if (on !== null && (before === null || isYes(before.active) !== on))
      return pick(on ? switched.on : switched.off, lang);
  }
  const words = ACTIONS[action];
  return words ? pick(words, lang) : action;
}

/** Every action the log writes, for the filter's choices. */
export const auditActions = Object.keys(ACTIONS);

/** An action's words alone (the filter's choices). */
export const actionName = (action: string, lang: Lang) => {
  const words = ACTIONS[action];
  return words ? pick(words, lang) : action;
};

/** Every kind of thing the log is about, for the filter's choices. */
export const auditEntities = Object.keys(ENTITIES);

export const entityName = (type: string, lang: Lang) => {
  const words = ENTITIES[type];
  return words ? pick(words, lang) : type;
};

/** "Hesap #12", "İşlem #1234": what the row is about. */
export function entityText(type: string, id: string, lang: Lang): string {
  return `${entityName(type, lang)} #${id}`;
}

export function fieldText(key: string, lang: Lang): string {
  const words = FIELDS[key];
  return words ? pick(words, lang) : key;
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
    if (yes !== null) return lang === "tr" ? (yes ? "evet" : "hayır") : yes ? "yes" : "no";
  }
  if (typeof v === "number" && Number.isSafeInteger(v) && MONEY.has(key))
    return `${money2(formatMinor(v))} TL`;
  if (typeof v === "number" && TIMES.has(key)) return when(new Date(v).toISOString(), lang);
  const words = typeof v === "string" ? VALUES[v] : undefined;
  if (words && (key === "status" || key === "role" || SECRETS.has(key))) return pick(words, lang);
  return typeof v === "string" ? v : JSON.stringify(v);
}
