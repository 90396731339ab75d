import { useEffect, useRef } from "preact/hooks";
import type { PendingBoundView as PendingBound } from "../../src/dashboard/pending-bounds.js";
import type { DashboardView as Dashboard } from "../../src/dashboard/summary.js";
import { api } from "./api";
import { useQueueEvents } from "./live";
import { breakerLabel, shownAmount } from "./manage";
import { age, Bars, money, useLoad, useShell } from "./ui";
import { fill } from "./words";

/**
 * A change in the queues refreshes the summary, at most this often: under load the notices come
 * several times a second, and the summary's figures are a day's, read from every transaction.
 */
const LIVE_REFRESH_MS = 5_000;

/** What the bank's statement lines did today (docs/reconciliation.md). */

/**
 * Today in Türkiye: counts, volumes, rates, callbacks and channel health. Refreshed when the queues
 * change (a deposit, a decision: live.ts), at most every 5 s, and every 15 s in any case (callbacks
 * and channels change without a queue notice).
 */
export function Summary() {
  const { t, lang } = useShell();
  const refresh = useRef({ reload: () => {}, last: Date.now(), timer: undefined as number | undefined });
  useQueueEvents(() => {
    const r = refresh.current;
    if (r.timer !== undefined) return;
    r.timer = window.setTimeout(
      () => {
        r.timer = undefined;
        r.last = Date.now();
        r.reload();
      },
      Math.max(0, r.last + LIVE_REFRESH_MS - Date.now()),
    );
  });
  useEffect(() => () => clearTimeout(refresh.current.timer), []);
  const [d, reload] = useLoad(
    async () => (await api<Dashboard>("GET", "/dashboard")).json,
    "dashboard",
    15_000,
  );
  refresh.current.reload = reload;
  if (!d?.deposits) return null;
  // Turkish writes the sign before the number (%75), English after it (75%).
  const rate = (r: number | null) =>
    r === null ? "—" : lang === "tr" ? `%${Math.round(r * 100)}` : `${Math.round(r * 100)}%`;
  const median = d.median_seconds_to_decision;
  return (
    <section id="dashboard">
      <h1>{t("today")}</h1>
      {d.pending_bounds && d.pending_bounds.length > 0 && <PendingBounds firms={d.pending_bounds} />}
      <div id="cards" class="cards">
        {(["deposits", "withdrawals"] as const).map((key) => {
          const x = d[key];
          return (
            <div class="card wide" key={key}>
              <div class="figure">
                {x.count} · {money(x.volume)} TL
              </div>
              <div class="label">{t(key)}</div>
              <Bars
                parts={[
                  ["approved", t("legendApproved"), x.approved],
                  ["rejected", t("legendRejected"), x.rejected],
                  ["pending", t("legendPending"), x.pending],
                ]}
              />
              <Hourly counts={x.hourly} label={t(key)} />
              <div class="minor">
                {t("approvalRate")}: <strong>{rate(x.approval_rate)}</strong> · {t("approvedVolume")}:{" "}
                <strong>{money(x.approved_volume)} TL</strong>
              </div>
            </div>
          );
        })}
        {(["deposits", "withdrawals"] as const).map((key) => {
          const x = d[key];
          return (
            <a class="card" id={`waiting-${key}`} key={`waiting-${key}`} href={`#/${key}`}>
              <div class="figure">{x.pending_all}</div>
              <div class="label">{t(key === "deposits" ? "pendingDeposits" : "pendingWithdrawals")}</div>
              {x.oldest_pending_at !== null && (
                <div class="minor">
                  {t("oldestWaiting")}: <strong>{age(x.oldest_pending_at, t)}</strong>
                </div>
              )}
            </a>
          );
        })}
        {d.statements && <StatementsCard s={d.statements} rate={rate} />}
        <div class="card">
          <div class="figure">
            {median === null
              ? "—"
              : median < 120
                ? `${median} ${t("unitSeconds")}`
                : `${Math.round(median / 60)} ${t("unitMinutes")}`}
          </div>
          <div class="label">{t("medianDecision")}</div>
        </div>
        <div class={d.callbacks.failed > 0 ? "card alert" : "card"}>
          <div class="figure">
            {d.callbacks.failed_more
              ? `${d.callbacks.failed.toLocaleString(lang === "tr" ? "tr-TR" : "en-GB")}+`
              : d.callbacks.failed}
          </div>
          <div class="label">{t("callbackFailures")}</div>
        </div>
        <div class={d.callbacks.retrying > 0 ? "card alert" : "card"}>
          <div class="figure">{d.callbacks.retrying}</div>
          <div class="label">{t("callbackRetrying")}</div>
        </div>
        <div class="card">
          <div class="figure">{d.callbacks.pending}</div>
          <div class="label">{t("callbackPending")}</div>
        </div>
      </div>
      {d.callbacks.receivers.length > 0 && (
        <>
          <h2>{t("slowReceivers")}</h2>
          <ul id="receivers" class="health">
            {d.callbacks.receivers.map((r) => (
              <li key={r.origin} class={r.slow ? "open" : "half_open"}>
                {r.origin}: {r.slow ? t("receiverSlow") : ""}
                {r.slow && r.hanging > 0 ? " · " : ""}
                {r.hanging > 0 ? `${r.hanging} ${t("receiverHanging")}` : ""}
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>{t("channels")}</h2>
      {d.channels.length === 0 && <p class="help">{t("noChannels")}</p>}
      <ul id="channels" class="health">
        {d.channels.map((c) => (
          <li key={c.code} class={c.active ? c.breaker : "inactive"}>
            {c.code} ({c.kind}): {c.active ? breakerLabel(c.breaker, t) : t("inactive")}
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * The statement's day: the share of today's approved deposits the bank's lines approved by
 * themselves, how long a payer waited from the money's arrival to the merchant's callback, the money
 * received that no deposit took (each a line to look at), and a live feed gone silent, which
 * quietly stops all of that. Opens the lines' screen.
 */
function StatementsCard({
  s,
  rate,
}: {
  s: NonNullable<Dashboard["statements"]>;
  rate: (r: number | null) => string;
}) {
  const { t, lang } = useShell();
  const median = s.median_seconds_credit_to_callback;
  const seconds =
    median === null
      ? "—"
      : median < 120
        ? `${lang === "tr" ? String(median).replace(".", ",") : median} ${t("unitSeconds")}`
        : `${Math.round(median / 60)} ${t("unitMinutes")}`;
  const silent = s.silent_feeds.length > 0;
  return (
    <a id="statements-card" class={silent ? "card wide alert" : "card wide"} href="#/statement-lines">
      <div class="label">{t("statementLines")}</div>
      <div class="figure">{rate(s.approved_automatically_share)}</div>
      <div class="label">
        {t("autoShare")} ({s.approved_automatically})
      </div>
      <div class="minor">
        {t("creditToCallback")}: <strong>{seconds}</strong>
      </div>
      <div class="minor" id="unmatched-money">
        {t("unmatchedMoney")}:{" "}
        <strong>
          {s.unmatched_credits} · {money(s.unmatched_amount)} TL
        </strong>
      </div>
      {silent && (
        <div class="minor error" id="silent-feeds">
          {t("silentFeeds").replace("{ids}", s.silent_feeds.map((id) => `#${id}`).join(", "))}
        </div>
      )}
    </a>
  );
}

/**
 * Firms whose new deposits are refused at their bound of pending deposits: to the merchant that is
 * "no account", so only here do operators see that the firm, not the pool, is the cause.
 */
function PendingBounds({ firms }: { firms: PendingBound[] }) {
  const { t } = useShell();
  return (
    <div id="pending-bounds" class="panel alert">
      <h2>{t("pendingBoundsTitle")}</h2>
      <ul>
        {firms.map((f) => (
          <li key={f.firm_id} data-firm={f.firm_id}>
            <a href={`#/firms/${f.firm_id}`}>
              {fill(t("pendingBoundLine"), {
                name: f.name,
                id: f.firm_id,
                count: f.pending_count,
                maxCount: f.max_pending_count ?? "—",
                amount: shownAmount(f.pending_amount),
                maxAmount: shownAmount(f.max_pending_amount),
              })}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Transactions per hour of today as a small bar chart (inline SVG: nothing to fetch), and the same
 * figures as a table that only screen readers are given: a chart read as "3 5 0 2 …" says nothing.
 */
function Hourly({ counts, label }: { counts: number[]; label: string }) {
  const { t } = useShell();
  const max = Math.max(1, ...counts);
  const hour = (h: number) => `${String(h).padStart(2, "0")}:00`;
  return (
    <div class="hourly">
      {/* Stretched to the card's width, so hour h sits under its place on the 00–24 scale below. */}
      <svg viewBox="0 0 240 40" preserveAspectRatio="none" aria-hidden="true" focusable="false">
        {counts.map((n, h) => (
          <g key={`h${String(h)}`}>
            <rect class="slot" x={h * 10 + 1} y={0} width={8} height={40} />
            <rect x={h * 10 + 1} y={40 - (38 * n) / max} width={8} height={(38 * n) / max}>
              <title>{`${hour(h)} ${n}`}</title>
            </rect>
          </g>
        ))}
      </svg>
      <table class="sr-only">
        <caption>{fill(t("hourlyCaption"), { what: label })}</caption>
        <thead>
          <tr>
            <th scope="col">{t("hourlyHour")}</th>
            <th scope="col">{t("hourlyCount")}</th>
          </tr>
        </thead>
        <tbody>
          {counts.map((n, h) => (
            <tr key={`r${String(h)}`}>
              <th scope="row">{`${hour(h)}–${hour(h + 1)}`}</th>
              <td>{n}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="hours" aria-hidden="true">
        <span>00</span>
        <span>06</span>
        <span>12</span>
        <span>18</span>
        <span>24</span>
      </div>
    </div>
  );
}
