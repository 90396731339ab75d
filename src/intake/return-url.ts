/**
 * Hosted-mode return_url rules. The four messages are the contract's, returned verbatim without the
 * `Validation failed:` prefix. The checks run in the order of the contract's table: parse, scheme,
 * host, userinfo. Parsing is lenient in the way Go's net/url is (a value without a scheme parses, and
 * then fails the scheme rule); what cannot be parsed is a missing scheme name, a bad percent-escape,
 * control characters, lone surrogates (not Unicode text: no store keeps them as sent) or a malformed
 * host.
 */
import { hasInvalidCharacters } from "../domain/text-rules.js";

const PARSE_ERROR = "return_url ayrıştırılamadı";
const SCHEME_ERROR = "return_url yalnız http veya https olabilir";
const HOST_ERROR = "return_url bir sunucu adı içermeli";
const USERINFO_ERROR = "return_url kullanıcı bilgisi (userinfo) içeremez";

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s;
const BAD_ESCAPE = /%(?![0-9a-fA-F]{2})/;

export function checkReturnUrl(value: string): string | null {
  if (hasInvalidCharacters(value) || BAD_ESCAPE.test(value) || value.startsWith(":")) return PARSE_ERROR;
  const scheme = SCHEME.exec(value);
  if (!scheme) return SCHEME_ERROR;
  const name = (scheme[1] ?? "").toLowerCase();
  if (name !== "http" && name !== "https") return SCHEME_ERROR;
  const rest = scheme[2] ?? "";
  if (!rest.startsWith("//")) return HOST_ERROR;
  const authority = rest.slice(2).split(/[/?#]/, 1)[0] ?? "";
  const at = authority.lastIndexOf("@");
  const hostPort = at >= 0 ? authority.slice(at + 1) : authority;
  if (hostPort.startsWith("[") && !hostPort.includes("]")) return PARSE_ERROR;
  const host = hostPort.startsWith("[")
    ? hostPort.slice(0, hostPort.indexOf("]") + 1)
    : hostPort.split(":")[0];
  if (host === "" || host === undefined) return HOST_ERROR;
  try {
    new URL(value);
  } catch {
    return PARSE_ERROR;
  }
  if (at >= 0) return USERINFO_ERROR;
  return null;
}
