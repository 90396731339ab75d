/**
 * The routing and callback lines of a transaction's detail in the console's language. The service
 * records them in English (they are logged and exported too), so each table here is keyed by the
 * recorded text and its English is that text; an operator working in Turkish reads "kabul edildi",
 * not "accepted". What a partner or a network wrote, a channel's own decline reason or an error's
 * code, is shown as it came, after the Turkish words for the codes operators meet most, so that it
 * can still be searched for or passed on to the partner.
 */
import { fill, type Lang, type WordTable, wordsIn } from "./words.js";

const WORDS = {
  // Routing steps.
  accepted: { tr: "kabul edildi", en: "accepted" },
  declined: { tr: "reddedildi", en: "declined" },
  failed: { tr: "başarısız", en: "failed" },
  skipped: { tr: "atlandı", en: "skipped" },
  manual: { tr: "manuel", en: "manual" },
  channel: { tr: "kanal", en: "channel" },
  // Callbacks and their attempts.
  pending: { tr: "bekliyor", en: "pending" },
  delivered: { tr: "iletildi", en: "delivered" },
  retry: { tr: "yeniden denenecek", en: "retry" },
} as const satisfies WordTable;

const REASONS = {
  "channel not active": { tr: "kanal etkin değil", en: "channel not active" },
  "deadline reached": { tr: "yönlendirme süresi doldu", en: "deadline reached" },
  "channel failed in this routing": {
    tr: "kanal bu yönlendirmede zaten başarısız oldu",
    en: "channel failed in this routing",
  },
  "channel breaker open": {
    tr: "kanal art arda hata verdiği için bir süre atlanıyor",
    en: "channel breaker open",
  },
  "channel has no URL or secret": {
    tr: "kanalın adresi ya da anahtarı tanımlı değil",
    en: "channel has no URL or secret",
  },
  "answer too large": { tr: "yanıt çok büyük", en: "answer too large" },
  "malformed answer": { tr: "yanıt anlaşılamadı", en: "malformed answer" },
  "no answer": { tr: "yanıt yok", en: "no answer" },
  declined: { tr: "gerekçe verilmedi", en: "declined" },
} as const satisfies WordTable;

/** Reasons recorded with a value in them, each read by its pattern in `reasonText`. */
const PATTERNS = {
  timedOut: { tr: "{ms} ms içinde yanıt gelmedi", en: "timed out after {ms} ms" },
  redirected: {
    tr: "HTTP {status} (yönlendirmeler izlenmez)",
    en: "HTTP {status} (redirects are not followed)",
  },
  addressNotAllowed: { tr: "izin verilmeyen adres: {address}", en: "address not allowed: {address}" },
  // The recorded reason starts with the code: in English it is shown alone.
  withCode: { tr: "{code} ({reason})", en: "{reason}" },
} as const satisfies WordTable;

/** Network error codes (Node's and undici's) an operator meets when a receiver or channel is down. */
const CODES = {
  ECONNREFUSED: { tr: "bağlantı reddedildi", en: "connection refused" },
  ECONNRESET: { tr: "bağlantı koptu", en: "connection reset" },
  UND_ERR_SOCKET: { tr: "bağlantı koptu", en: "connection closed" },
  ENOTFOUND: { tr: "alan adı bulunamadı", en: "domain not found" },
  EAI_AGAIN: { tr: "alan adı çözülemedi", en: "domain not resolved" },
  EHOSTUNREACH: { tr: "sunucuya ulaşılamıyor", en: "host unreachable" },
  ENETUNREACH: { tr: "ağa ulaşılamıyor", en: "network unreachable" },
  CERT_HAS_EXPIRED: { tr: "sertifikanın süresi dolmuş", en: "certificate expired" },
  DEPTH_ZERO_SELF_SIGNED_CERT: { tr: "sertifika kendinden imzalı", en: "self-signed certificate" },
  ERR_TLS_CERT_ALTNAME_INVALID: {
    tr: "sertifika bu alan adı için değil",
    en: "certificate for another name",
  },
} as const satisfies WordTable;

/** The tables, for the test that holds every table to both languages. */
export const DETAIL_TABLES = { WORDS, REASONS, PATTERNS, CODES };

/** A recorded word (`accepted`, `delivered`, …) in `lang`; an unknown one as it is. */
export function word(value: string, lang: Lang): string {
  return wordsIn(WORDS, value, lang) ?? value;
}

/** A recorded reason (a routing step's or a callback attempt's) in `lang`. */
export function reasonText(reason: string, lang: Lang): string {
  const known = wordsIn(REASONS, reason, lang);
  if (known !== undefined) return known;
  let m = /^timed out after (\d+) ms$/.exec(reason);
  if (m) return fill(PATTERNS.timedOut[lang], { ms: m[1] ?? "" });
  m = /^HTTP (\d+) \(redirects are not followed\)$/.exec(reason);
  if (m) return fill(PATTERNS.redirected[lang], { status: m[1] ?? "" });
  m = /^address not allowed: (.*)$/s.exec(reason);
  if (m) return fill(PATTERNS.addressNotAllowed[lang], { address: m[1] ?? "" });
  m = /^([A-Z][A-Z0-9_]+)(?::|$)/.exec(reason);
  const code = m?.[1] === undefined ? undefined : wordsIn(CODES, m[1], lang);
  return code === undefined ? reason : fill(PATTERNS.withCode[lang], { code, reason });
}

/**
 * A callback's last result as recorded ("HTTP 500; next attempt 2026-…Z", "no answer; failed"),
 * without the tail the detail shows apart (the next attempt, in local time) or that its status
 * already says (failed), in `lang`.
 */
export function lastResultText(text: string | null, lang: Lang): string {
  return reasonText((text ?? "").replace(/; (next attempt \S+|failed)$/, ""), lang);
}
