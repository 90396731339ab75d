/**
 * The routing and callback lines of a transaction's detail in the console's language. The service
 * records them in English (they are logged and exported too); an operator working in Turkish reads
 * "kabul edildi", not "accepted". What a partner or a network wrote, a channel's own decline reason
 * or an error's code, is shown as it came, after the Turkish words for the codes operators meet
 * most, so that it can still be searched for or passed on to the partner.
 */
import type { Lang } from "./i18n.js";

const WORDS = {
  // Routing steps.
  accepted: "kabul edildi",
  declined: "reddedildi",
  failed: "başarısız",
  skipped: "atlandı",
  manual: "manuel",
  channel: "kanal",
  // Callbacks and their attempts.
  pending: "bekliyor",
  delivered: "iletildi",
  retry: "yeniden denenecek",
} as const satisfies Record<string, string>;

const REASONS: Record<string, string> = {
  "channel not active": "kanal etkin değil",
  "deadline reached": "yönlendirme süresi doldu",
  "channel failed in this routing": "kanal bu yönlendirmede zaten başarısız oldu",
  "channel breaker open": "kanal art arda hata verdiği için bir süre atlanıyor",
  "channel has no URL or secret": "kanalın adresi ya da anahtarı tanımlı değil",
  "answer too large": "yanıt çok büyük",
  "malformed answer": "yanıt anlaşılamadı",
  "no answer": "yanıt yok",
  declined: "gerekçe verilmedi",
};

/** Network error codes (Node's and undici's) an operator meets when a receiver or channel is down. */
const CODES: Record<string, string> = {
  ECONNREFUSED: "bağlantı reddedildi",
  ECONNRESET: "bağlantı koptu",
  UND_ERR_SOCKET: "bağlantı koptu",
  ENOTFOUND: "alan adı bulunamadı",
  EAI_AGAIN: "alan adı çözülemedi",
  EHOSTUNREACH: "sunucuya ulaşılamıyor",
  ENETUNREACH: "ağa ulaşılamıyor",
  CERT_HAS_EXPIRED: "sertifikanın süresi dolmuş",
  DEPTH_ZERO_SELF_SIGNED_CERT: "sertifika kendinden imzalı",
  ERR_TLS_CERT_ALTNAME_INVALID: "sertifika bu alan adı için değil",
};

export type Word = keyof typeof WORDS;

/** A recorded word (`accepted`, `delivered`, …) in `lang`; an unknown one as it is. */
export function word(value: string, lang: Lang): string {
  return lang === "tr" && value in WORDS ? WORDS[value as Word] : value;
}

/** A recorded reason (a routing step's or a callback attempt's) in `lang`. */
export function reasonText(reason: string, lang: Lang): string {
  if (lang !== "tr") return reason;
  const known = REASONS[reason];
  if (known) return known;
  let m = /^timed out after (\d+) ms$/.exec(reason);
  if (m) return `${m[1]} ms içinde yanıt gelmedi`;
  m = /^HTTP (\d+) \(redirects are not followed\)$/.exec(reason);
  if (m) return `HTTP ${m[1]} (yönlendirmeler izlenmez)`;
  m = /^address not allowed: (.*)$/s.exec(reason);
  if (m) return `izin verilmeyen adres: ${m[1]}`;
  m = /^([A-Z][A-Z0-9_]+)(?::|$)/.exec(reason);
  const code = m?.[1] && CODES[m[1]];
  return code ? `${code} (${reason})` : reason;
}

/**
 * A callback's last result as recorded ("HTTP 500; next attempt 2026-…Z", "no answer; failed"),
 * without the tail the detail shows apart (the next attempt, in local time) or that its status
 * already says (failed), in `lang`.
 */
export function lastResultText(text: string | null, lang: Lang): string {
  return reasonText((text ?? "").replace(/; (next attempt \S+|failed)$/, ""), lang);
}
