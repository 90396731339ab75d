export type CallbackUrlResolution =
  | { ok: true; url: string }
  | { ok: false; error: "header_host_mismatch" | "not_configured" };

export interface CallbackUrlSources {
  /** Central callback URL of a platform or aggregator provider; when set it wins over everything. */
  providerUrl: string | null;
  /** The X-Callback-URL header, if the request sent a non-empty one. */
  headerUrl: string | null;
  /** The firm's registered webhook URL. */
  webhookUrl: string | null;
}

/**
 * What must be equal between the header and the webhook: scheme, host and port, and the userinfo
 * (only the path may differ, so `http://user:pw@host/x` is not the webhook's `http://host`).
 */
function origin(raw: string): string | null {
  try {
    const url = new URL(raw);
    // URL.origin drops default ports, so http://h and http://h:80 compare equal.
    return url.origin === "null" ? null : `${url.username}:${url.password}@${url.origin.toLowerCase()}`;
  } catch {
    return null;
  }
}

/** Priority: provider URL, then the header, then the firm's webhook (contract, Authentication). */
export function resolveCallbackUrl(sources: CallbackUrlSources): CallbackUrlResolution {
  if (sources.providerUrl) return { ok: true, url: sources.providerUrl };
  if (sources.headerUrl !== null) {
    const webhookOrigin = sources.webhookUrl ? origin(sources.webhookUrl) : null;
    const headerOrigin = origin(sources.headerUrl);
    if (webhookOrigin === null || headerOrigin === null || headerOrigin !== webhookOrigin) {
      return { ok: false, error: "header_host_mismatch" };
    }
    // The path and the query may differ (HTTP's request target: an order id in the query is
    // common); a fragment is never sent, so it is not kept.
    const url = new URL(sources.headerUrl);
    url.hash = "";
    return { ok: true, url: url.href };
  }
  if (sources.webhookUrl) return { ok: true, url: sources.webhookUrl };
  return { ok: false, error: "not_configured" };
}
