/**
 * What stopped a statement line from approving, in the console's words (the line view's
 * `stopped_by`, matching.ts's Stop): the line's own reasons above its candidates, each candidate's
 * under its evidence, the deposits that stood in the way linked to their details with their status.
 * A code this console has no words for shows as the API wrote it.
 */

import type { LineView } from "../../src/reconciliation/line-views.js";
import type { StopCode } from "../../src/reconciliation/matching.js";
import type { T } from "./i18n";
import { statusText } from "./transaction-detail";
import { useShell } from "./ui";
import { fill } from "./words";

export type LineStop = LineView["stopped_by"][number];

/** Every code the matching gives has its words: a new one does not compile until it has. */
const STOP_KEYS = {
  amount_differs: "stopAmountDiffers",
  name_differs: "stopNameDiffers",
  cut_name_fits_others: "stopCutNameFitsOthers",
  code_near: "stopCodeNear",
  other_code: "stopOtherCode",
  name_may_not_approve: "stopNameMayNotApprove",
  same_amount_pending: "stopSameAmountPending",
  same_amount_decided: "stopSameAmountDecided",
  firm_approves_by_hand: "stopFirmByHand",
  held_unbalanced: "stopHeldUnbalanced",
  held_crowded: "stopHeldCrowded",
  more_than_one_proven: "stopMoreThanOneProven",
  reversal: "stopReversal",
  other_currency: "stopOtherCurrency",
} as const satisfies Record<StopCode, Parameters<T>[0]>;

/**
 * The reasons in `stops` as one paragraph (`id` for the line's own), or nothing when there are none:
 * a line stored before the reasons were kept has none, and shows as it did.
 */
export function Stops(props: { stops: readonly LineStop[]; title: string; id?: string }) {
  const { t } = useShell();
  if (props.stops.length === 0) return null;
  return (
    <p id={props.id} class="stopped">
      {props.title}:{" "}
      {props.stops.map((s, i) => (
        <span key={`${s.code}-${s.deposit_id}`} data-stop={s.code}>
          {i > 0 && "; "}
          <StopText stop={s} t={t} />
        </span>
      ))}
    </p>
  );
}

function StopText({ stop, t }: { stop: LineStop; t: T }) {
  const key = STOP_KEYS[stop.code as StopCode] as Parameters<T>[0] | undefined;
  if (!key) return <>{stop.code}</>;
  const text = t(key);
  if (!text.includes("{deposits}")) return <>{text}</>;
  // The deposits go where the sentence puts them, each a link to its detail.
  const [before, after = ""] = text.split("{deposits}");
  return (
    <>
      {before}
      {stop.deposits.map((d, i) => (
        <span key={d.id}>
          {i > 0 && ", "}
          <a href={`#/transactions/${d.id}`} aria-label={fill(t("txDetailOf"), { id: String(d.id) })}>
            #{d.id}
          </a>{" "}
          ({statusText(d.status, t)})
        </span>
      ))}
      {stop.deposit_count > stop.deposits.length &&
        ` ${fill(t("stopMoreDeposits"), { n: stop.deposit_count - stop.deposits.length })}`}
      {after}
    </>
  );
}
