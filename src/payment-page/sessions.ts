/**
 * Hosted mode: a session opened by a `redirect: true` deposit, the page's view of it, and the
 * payer's amount submission, which runs the same deposit creation as direct mode with the fields
 * stored at opening. No HTTP here; payment-page/routes.ts serves it.
 */
import { createHash, randomBytes } from "node:crypto";
import { sealContext } from "../crypto/seal-context.js";
import type { SecretBox } from "../crypto/secret-box.js";
import type { Firm } from "../domain/firm.js";
import { formatMinor } from "../domain/money.js";
import type { PaymentCodes } from "../domain/payment-code.js";
import { withoutControlCharacters } from "../domain/text-rules.js";
import { toFirm } from "../intake/firm-directory.js";
import { createDeposit, type IntakePorts } from "../intake/intake.js";
import type { BusinessRejection } from "../intake/rejections.js";
import type { DepositRequest } from "../intake/requests.js";
import type { FirmWithProvider } from "../store/firms/firms.js";
import type { Repositories } from "../store/index.js";
import type { SessionRow } from "../store/payment-page/payment-sessions.js";
import type { TransactionRow } from "../store/transactions/transactions.js";
import { createUsualAmounts, type UsualAmounts } from "./usual-amount.js";

export const SESSION_TTL_MS = 30 * 60_000;

/** Where and how much a pending deposit is to be paid, as the page shows it. */
export interface AccountShown {
  bankName: string;
  holderName: string;
  iban: string;
  /** 2-decimal text ("250.50"). */
  amount: string;
  /** What the payer writes in the transfer's description (domain/payment-code.ts). */
  paymentCode: string;
  /**
   * When auto-cancel rejects the deposit if it is still pending (its provider's
   * auto_cancel_minutes after creation); null when an operator decides whenever.
   */
  payBy: number | null;
}

export type PageState =
  | {
      status: "open";
      expiresAt: number;
      returnUrl: string | null;
      /** Whom the payer pays: the firm's display name, else its name ("<Shop> için ödeme"). */
      merchantName: string;
      /** The firm's deposit limits, 2-decimal text ("100.00"), when set: the page shows them. */
      minAmount: string | null;
      maxAmount: string | null;
      /**
       * Above it the confirmation step warns that the amount is far above what the firm's payers
       * usually send (usual-amount.ts), 2-decimal text; null when nothing is known to be unusual.
       */
      usualMaxAmount: string | null;
      /**
       * The payer's own deposit at this firm that is still pending (made directly or from another
       * link): no new one can be made until it is decided (`Halihazirda bekleyen talebiniz var`),
       * so the page shows where to pay it instead of a form that can only be refused.
       */
      earlierDeposit: AccountShown | null;
    }
  | ({
      status: "assigned";
      returnUrl: string | null;
      merchantName: string;
      /** The merchant's reference for the deposit: the one the payer quotes to the merchant. */
      reference: string;
      /** When the deposit was made (ms). */
      createdAt: number;
    } & AccountShown)
  | {
      status: "expired";
      returnUrl: string | null;
      /** The decision, when the page closed because its deposit was decided (not for a link unused). */
      outcome?: "approved" | "rejected";
    };

export type SubmitOutcome =
  | { ok: true; state: PageState }
  | { ok: false; kind: "not_found" }
  | { ok: false; kind: "rejected"; rejection: BusinessRejection }
  /**
   * The merchant opened this session with a reference another transaction already has: refused
   * like any duplicate, but the payer can do nothing about it, so the caller tells the operators.
   */
  | { ok: false; kind: "reference_reused"; firmId: number; reference: string };

export interface HostedDeps {
  repos: Repositories;
  box: SecretBox;
  intake: IntakePorts;
  /** The code the page shows under the IBAN, the one the statement is matched by. */
  paymentCodes: PaymentCodes;
  now(): number;
}

/** At least 128 bits from the CSPRNG, URL-safe (decisions.md). */
const newToken = () => randomBytes(24).toString("base64url");
const hashOf = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32}$/;
/** Whether a value could be a page token at all (anything else is an unknown token, unlooked-up). */
export const isTokenShaped = (token: string): boolean => TOKEN_SHAPE.test(token);

function accountOf(
  tx: TransactionRow,
  autoCancelMinutes: number | null | undefined,
  codes: PaymentCodes,
): AccountShown {
  return {
    bankName: tx.assigned_bank_name ?? "",
    holderName: tx.assigned_holder_name ?? "",
    iban: tx.assigned_iban ?? "",
    amount: formatMinor(tx.amount),
    paymentCode: codes.of(tx.id),
    // The payer is told by when to pay: auto-cancel rejects the deposit then (jobs/auto-cancel.ts
    // counts from its creation), and a transfer sent later goes to a deposit no longer there.
    payBy: autoCancelMinutes ? tx.created_at + autoCancelMinutes * 60_000 : null,
  };
}

/** What the page's state is read with: the sessions' store and the firms' usual amounts. */
interface PageDeps extends HostedDeps {
  usual: UsualAmounts;
}

export function createHostedSessions(hosted: HostedDeps) {
  const deps: PageDeps = { ...hosted, usual: createUsualAmounts(hosted.repos.usualAmounts, hosted.now) };
  return {
    /** Opens a session; the answer carries the token once, only its hash is kept. */
    open: (firm: Firm, req: DepositRequest, callbackUrl: string) => openSession(deps, firm, req, callbackUrl),

    /** Whether the token opens a session at all (the page API's 404 comes before anything else). */
    async exists(token: string): Promise<boolean> {
      return (await findByToken(deps, token)) !== undefined;
    },

    async state(token: string): Promise<PageState | undefined> {
      const session = await findByToken(deps, token);
      return session ? stateOf(deps, session) : undefined;
    },

    submit: (token: string, amountMinor: number) => submitAmount(deps, token, amountMinor),
  };
}

export type HostedSessions = ReturnType<typeof createHostedSessions>;

async function findByToken(deps: HostedDeps, token: string): Promise<SessionRow | undefined> {
  const { repos } = deps;
  if (!isTokenShaped(token)) return undefined;
  return repos.sessions.byTokenHash(hashOf(token));
}

/** What the page's state needs of the session's firm. */
type PageFirm = Pick<
  FirmWithProvider,
  | "id"
  | "name"
  | "display_name"
  | "active"
  | "deposit_min"
  | "deposit_max"
  | "usual_amount_max"
  | "provider_auto_cancel_minutes"
>;

/**
 * The shop's name as payers see it. Names typed since the control-character rules hold none; one
 * stored before them is shown without them.
 */
const merchantNameOf = (firm: PageFirm | undefined) =>
  firm ? withoutControlCharacters(firm.display_name ?? firm.name) : "";

/** `firm`: the session's firm when the caller has read it already (it is read here otherwise). */
async function stateOf(deps: PageDeps, session: SessionRow, firm?: PageFirm): Promise<PageState> {
  const { repos } = deps;
  const returnUrl = session.return_url;
  if (session.status === "open") {
    if (deps.now() >= session.expires_at) return { status: "expired", returnUrl };
    // A deactivated firm takes no more deposits, from its pages either: its open links expire.
    const row = firm ?? (await repos.firms.findWithProvider(session.firm_id));
    if (!row?.active) return { status: "expired", returnUrl };
    const [earlier, usualMax] = await Promise.all([
      earlierDepositOf(deps, session),
      deps.usual.usualMax(row),
    ]);
    // The limits the deposit will be judged by (intake.ts), so that a payer refused with the
    // limit text can learn them; read with the same row that says the page is open.
    return {
      status: "open",
      expiresAt: session.expires_at,
      returnUrl,
      merchantName: merchantNameOf(row),
      minAmount: row.deposit_min === null ? null : formatMinor(row.deposit_min),
      maxAmount: row.deposit_max === null ? null : formatMinor(row.deposit_max),
      usualMaxAmount: usualMax === null ? null : formatMinor(usualMax),
      // This session's own deposit, written a moment before the session is marked assigned, is
      // not an earlier one: the next answer shows it as assigned.
      earlierDeposit:
        earlier && earlier.reference !== session.reference
          ? accountOf(earlier, row.provider_auto_cancel_minutes, deps.paymentCodes)
          : null,
    };
  }
  const tx =
    session.transaction_id === null ? undefined : await repos.transactions.get(session.transaction_id);
  // The account is shown only while the transaction is pending; after that, never again. The
  // payer is told how it ended (approved, or rejected or cancelled), nothing more.
  if (tx?.status !== "pending") {
    return tx?.status === "approved" || tx?.status === "rejected"
      ? { status: "expired", returnUrl, outcome: tx.status }
      : { status: "expired", returnUrl };
  }
  const row = firm ?? (await repos.firms.findWithProvider(session.firm_id));
  const minutes = row?.provider_auto_cancel_minutes;
  return {
    status: "assigned",
    returnUrl,
    merchantName: merchantNameOf(row),
    reference: tx.reference,
    createdAt: tx.created_at,
    ...accountOf(tx, minutes, deps.paymentCodes),
  };
}

/**
 * The payer's pending deposit at the session's firm, if any. A stored request that does not open
 * shows none: the page still loads, and its submission fails on its own.
 */
async function earlierDepositOf(deps: HostedDeps, session: SessionRow) {
  const { repos } = deps;
  let userId: string;
  try {
    userId = requestOf(deps, session).userId;
  } catch {
    return undefined;
  }
  return repos.transactions.pendingDepositOf(session.firm_id, userId);
}

/**
 * The deposit request stored at opening (validated then; it holds the payer's user id). Throws
 * (a 500 for this submission, logged) when it does not open: copied from another page's row or
 * altered in the database; no other page's payer details are ever used.
 */
function requestOf(deps: HostedDeps, session: SessionRow): DepositRequest {
  const { box } = deps;
  return JSON.parse(
    box.open(session.request_sealed, sealContext.hostedRequest(session.token_hash)),
  ) as DepositRequest;
}

/** Opens a session; the answer carries the token once, only its hash is kept. */
async function openSession(
  deps: HostedDeps,
  firm: Firm,
  req: DepositRequest,
  callbackUrl: string,
): Promise<{ token: string }> {
  const { repos, box } = deps;
  const token = newToken();
  const tokenHash = hashOf(token);
  const now = deps.now();
  await repos.sessions.create({
    token_hash: tokenHash,
    firm_id: firm.id,
    reference: req.reference,
    request_sealed: box.seal(JSON.stringify(req), sealContext.hostedRequest(tokenHash)),
    callback_url: callbackUrl,
    return_url: req.returnUrl,
    expires_at: now + SESSION_TTL_MS,
    created_at: now,
    updated_at: now,
  });
  return { token };
}

/**
 * The payer's amount. A business rejection leaves the session open for another amount; success
 * assigns it. Two submissions at once create one transaction: the reference is unique, and the
 * loser finds the session assigned and shows the same account.
 */
async function submitAmount(deps: PageDeps, token: string, amountMinor: number): Promise<SubmitOutcome> {
  const { repos, box } = deps;
  const session = await findByToken(deps, token);
  if (!session) return { ok: false, kind: "not_found" };
  const row = await repos.firms.findWithProvider(session.firm_id);
  if (!row) return { ok: false, kind: "not_found" };
  // One read of the firm: the same row decides whether the page is still open and makes the
  // deposit. A page that takes no amount answers its state; an open one needs none of it (the
  // deposit's own checks find an earlier pending deposit).
  if (session.status !== "open" || deps.now() >= session.expires_at || !row.active)
    return { ok: true, state: await stateOf(deps, session, row) };
  const firm = toFirm(row, box);
  const req = requestOf(deps, session);
  const outcome = await createDeposit(
    deps.intake,
    firm,
    { ...req, amountMinor, redirect: false },
    session.callback_url,
  );
  if (!outcome.ok) {
    if (outcome.rejection === "duplicate_reference") {
      // A second click or tab: the first submission created the transaction (and may not have
      // marked the session yet). Assign it to that transaction and show what the first shows.
      const tx = await repos.transactions.findByReference(session.firm_id, session.reference);
      // Only a deposit this session's payer made since it opened: a merchant that reused a
      // reference must not lead the payer to another deposit's account and amount.
      if (tx && tx.type === "deposit" && tx.user_id === req.userId && tx.created_at >= session.created_at) {
        await repos.sessions.markAssigned(session.id, tx.id, deps.now());
        const again = await repos.sessions.byTokenHash(session.token_hash);
        if (again?.transaction_id === tx.id) return { ok: true, state: await stateOf(deps, again, row) };
      } else {
        return {
          ok: false,
          kind: "reference_reused",
          firmId: session.firm_id,
          reference: session.reference,
        };
      }
    }
    return { ok: false, kind: "rejected", rejection: outcome.rejection };
  }
  await repos.sessions.markAssigned(session.id, outcome.id, deps.now());
  const assigned = await repos.sessions.byTokenHash(session.token_hash);
  return { ok: true, state: await stateOf(deps, assigned ?? session, row) };
}
