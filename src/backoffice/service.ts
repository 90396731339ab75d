import { randomBytes } from "node:crypto";
import type { Updateable } from "kysely";
import type { SecretBox } from "../crypto/secret-box.js";
import { callbackDraft, type Decision, planDecision } from "../domain/decisions.js";
import { formatMinor } from "../domain/money.js";
import { startOfIstanbulDay } from "../domain/routing.js";
import type { TargetCheck } from "../net/callback-target.js";
import type { Repositories } from "../store/index.js";
import type { FirmTable, PaymentAccountTable, ProviderTable } from "../store/schema.js";
import type { TransactionFilter } from "../store/transactions.js";
import {
  accountView,
  callbackAttemptView,
  callbackView,
  channelView,
  firmView,
  operatorTransactionView,
  providerView,
} from "./views.js";

/**
 * What operators can do, with no HTTP in it. Inputs arrive already shaped by the admin API's
 * schemas; the outcomes that are expected (unknown id, URL not allowed) come back as values.
 */
export interface Refusal {
  ok: false;
  status: 400 | 404 | 409;
  message: string;
}
export type Outcome<T> = { ok: true; value: T } | Refusal;

/** Who changed something through the admin API (CLI and automation, one shared token). */
const ADMIN_API = "admin-api";

const notFound = (what: string): Refusal => ({ ok: false, status: 404, message: `${what} not found` });
const bad = (message: string): Refusal => ({ ok: false, status: 400, message });
const notPending = (status: string): Refusal => ({
  ok: false,
  status: 409,
  message: `transaction is not pending (status: ${status}); it was decided already`,
});

export interface BackofficeDeps {
  repos: Repositories;
  box: SecretBox;
  callbackTargetAllowed: TargetCheck;
  /** Called after any change a cached firm lookup might hold, so this instance sees it at once. */
  firmsChanged(): void;
  /** Called after any change to the payment accounts, so this instance routes by it at once. */
  accountsChanged(): void;
  /** Breaker state per channel id on this instance. */
  channelHealth(): ReadonlyMap<number, string>;
  /** Called after a decision queued its callback, so it goes out at once. */
  callbackQueued(): void;
  now(): number;
}

export const newApiKey = () => `pk_${randomBytes(18).toString("base64url")}`;
export const newSecretKey = () => `sk_${randomBytes(32).toString("base64url")}`;

export interface ProviderInput {
  name: string;
  kind: ProviderTable["kind"];
  callback_url: string | null;
  auto_cancel_minutes: number;
}

export interface FirmInput {
  name: string;
  provider_id: number | null;
  webhook_url: string | null;
  legacy_http: boolean;
  callback_middle_name: boolean;
  deposit_min: number | null;
  deposit_max: number | null;
  rate_limit_per_second: number;
}

export interface FirmChanges {
  deposits_open?: boolean;
  withdrawals_open?: boolean;
  active?: boolean;
  webhook_url?: string | null;
  legacy_http?: boolean;
  callback_middle_name?: boolean;
  deposit_min?: number | null;
  deposit_max?: number | null;
  rate_limit_per_second?: number;
}

export interface AccountInput {
  bank_name: string;
  holder_name: string;
  iban: string;
  min_amount: number | null;
  max_amount: number | null;
  /** The channel's code; none = the account itself (manual). */
  channel?: string | null;
  bank_code?: string | null;
  daily_cap?: number | null;
}

export interface ChannelInput {
  code: string;
  kind: "manual" | "http";
  url: string | null;
  timeout_ms: number;
}

const flag = (v: boolean | undefined) => (v === undefined ? undefined : v ? 1 : 0);

export function createBackoffice(deps: BackofficeDeps) {
  const { repos, box } = deps;

  /** A channel code to its id: null for none, undefined when no such channel exists. */
  async function channelId(code: string | null | undefined): Promise<number | null | undefined> {
    if (code === null || code === undefined) return null;
    return (await repos.channels.byCode(code))?.id;
  }

  async function checkCallbackTarget(url: string | null | undefined): Promise<Refusal | null> {
    if (url === null || url === undefined) return null;
    if (!(await deps.callbackTargetAllowed(url))) return bad("Callback URL is not allowed");
    return null;
  }

  function checkRange(min: number | null | undefined, max: number | null | undefined): Refusal | null {
    if (min != null && max != null && min > max) return bad("the minimum must not exceed the maximum");
    return null;
  }

  return {
    async createProvider(input: ProviderInput): Promise<Outcome<ReturnType<typeof providerView>>> {
      if (input.callback_url !== null && input.kind === "direct") {
        return bad("only platform and aggregator providers have a central callback URL");
      }
      const refused = await checkCallbackTarget(input.callback_url);
      if (refused) return refused;
      const now = deps.now();
      const row = await repos.firms.createProvider({ ...input, created_at: now, updated_at: now });
      return { ok: true, value: providerView(row) };
    },

    async listProviders() {
      return (await repos.firms.listProviders()).map(providerView);
    },

    async updateProvider(id: number, changes: Partial<Omit<ProviderInput, "kind" | "name">>) {
      const existing = await repos.firms.getProvider(id);
      if (!existing) return notFound("provider");
      if (changes.callback_url && existing.kind === "direct") {
        return bad("only platform and aggregator providers have a central callback URL");
      }
      const refused = await checkCallbackTarget(changes.callback_url);
      if (refused) return refused;
      const row = await repos.firms.updateProvider(id, { ...changes, updated_at: deps.now() });
      deps.firmsChanged();
      return row ? { ok: true as const, value: providerView(row) } : notFound("provider");
    },

    async createFirm(input: FirmInput) {
      if (input.provider_id !== null && !(await repos.firms.getProvider(input.provider_id))) {
        return notFound("provider");
      }
      const refused =
        (await checkCallbackTarget(input.webhook_url)) ?? checkRange(input.deposit_min, input.deposit_max);
      if (refused) return refused;
      const secret = newSecretKey();
      const now = deps.now();
      const row = await repos.firms.create({
        name: input.name,
        provider_id: input.provider_id,
        api_key: newApiKey(),
        secret_sealed: deps.box.seal(secret),
        webhook_url: input.webhook_url,
        legacy_http: input.legacy_http ? 1 : 0,
        callback_middle_name: input.callback_middle_name ? 1 : 0,
        deposit_min: input.deposit_min,
        deposit_max: input.deposit_max,
        deposits_open: 1,
        withdrawals_open: 1,
        active: 1,
        rate_limit_per_second: input.rate_limit_per_second,
        created_at: now,
        updated_at: now,
      });
      // The only moment besides rotation that the secret leaves the store in clear.
      return { ok: true as const, value: { ...firmView(row), secret_key: secret } };
    },

    async listFirms() {
      return (await repos.firms.list()).map(firmView);
    },

    async getFirm(id: number) {
      const row = await repos.firms.get(id);
      return row ? { ok: true as const, value: firmView(row) } : notFound("firm");
    },

    async updateFirm(id: number, changes: FirmChanges, actor = ADMIN_API) {
      const existing = await repos.firms.get(id);
      if (!existing) return notFound("firm");
      const refused =
        (await checkCallbackTarget(changes.webhook_url)) ??
        checkRange(
          changes.deposit_min === undefined ? existing.deposit_min : changes.deposit_min,
          changes.deposit_max === undefined ? existing.deposit_max : changes.deposit_max,
        );
      if (refused) return refused;
      const update: Updateable<FirmTable> = {
        deposits_open: flag(changes.deposits_open),
        withdrawals_open: flag(changes.withdrawals_open),
        active: flag(changes.active),
        legacy_http: flag(changes.legacy_http),
        callback_middle_name: flag(changes.callback_middle_name),
        webhook_url: changes.webhook_url,
        deposit_min: changes.deposit_min,
        deposit_max: changes.deposit_max,
        rate_limit_per_second: changes.rate_limit_per_second,
        updated_at: deps.now(),
      };
      const row = await repos.audited.firm(id, update, { actor, action: "firm.update", at: deps.now() });
      deps.firmsChanged();
      return row ? { ok: true as const, value: firmView(row) } : notFound("firm");
    },

    async rotateSecret(id: number, actor = ADMIN_API) {
      const secret = newSecretKey();
      const row = await repos.audited.firm(
        id,
        { secret_sealed: deps.box.seal(secret), updated_at: deps.now() },
        { actor, action: "firm.rotate_secret", at: deps.now() },
      );
      deps.firmsChanged();
      return row ? { ok: true as const, value: { ...firmView(row), secret_key: secret } } : notFound("firm");
    },

    async addAccount(input: AccountInput) {
      const refused = checkRange(input.min_amount, input.max_amount);
      if (refused) return refused;
      const channel = await channelId(input.channel);
      if (channel === undefined) return notFound("channel");
      const now = deps.now();
      const { channel: _code, bank_code, ...rest } = input;
      const row = await repos.accounts.add({
        ...rest,
        channel_id: channel,
        bank_code: bank_code?.toUpperCase() ?? null,
        daily_cap: rest.daily_cap ?? null,
        active: 1,
        created_at: now,
        updated_at: now,
      });
      deps.accountsChanged();
      return { ok: true as const, value: accountView(row) };
    },

    async updateAccount(
      id: number,
      changes: {
        active?: boolean;
        min_amount?: number | null;
        max_amount?: number | null;
        channel?: string | null;
        bank_code?: string | null;
        daily_cap?: number | null;
      },
      actor = ADMIN_API,
    ) {
      const existing = await repos.accounts.get(id);
      if (!existing) return notFound("account");
      const channel = changes.channel === undefined ? existing.channel_id : await channelId(changes.channel);
      if (channel === undefined) return notFound("channel");
      const refused = checkRange(
        changes.min_amount === undefined ? existing.min_amount : changes.min_amount,
        changes.max_amount === undefined ? existing.max_amount : changes.max_amount,
      );
      if (refused) return refused;
      const update: Updateable<PaymentAccountTable> = {
        active: flag(changes.active),
        min_amount: changes.min_amount,
        max_amount: changes.max_amount,
        channel_id: channel,
        daily_cap: changes.daily_cap,
        bank_code: changes.bank_code === undefined ? undefined : (changes.bank_code?.toUpperCase() ?? null),
        updated_at: deps.now(),
      };
      const row = await repos.audited.account(id, update, {
        actor,
        action: "account.update",
        at: deps.now(),
      });
      deps.accountsChanged();
      return row ? { ok: true as const, value: accountView(row) } : notFound("account");
    },

    async listAccounts() {
      return (await repos.accounts.list()).map(accountView);
    },

    /** An http channel gets a secret to verify our asks with, shown here only (and never logged). */
    async createChannel(input: ChannelInput) {
      if (input.kind === "http" && input.url === null) return bad("an http channel needs --url");
      if (await repos.channels.byCode(input.code)) return bad(`channel ${input.code} exists already`);
      const now = deps.now();
      const secret = input.kind === "http" ? newSecretKey() : null;
      const row = await repos.channels.create({
        ...input,
        url: input.kind === "http" ? input.url : null,
        secret_sealed: secret === null ? null : box.seal(secret),
        active: 1,
        created_at: now,
        updated_at: now,
      });
      deps.accountsChanged();
      return { ok: true as const, value: { ...channelView(row), ...(secret ? { secret } : {}) } };
    },

    async updateChannel(code: string, changes: { url?: string; timeout_ms?: number; active?: boolean }) {
      const existing = await repos.channels.byCode(code);
      if (!existing) return notFound("channel");
      if (changes.url !== undefined && existing.kind !== "http") return bad("only an http channel has a URL");
      const row = await repos.channels.update(existing.id, {
        url: changes.url,
        timeout_ms: changes.timeout_ms,
        active: flag(changes.active),
        updated_at: deps.now(),
      });
      deps.accountsChanged();
      return row ? { ok: true as const, value: channelView(row) } : notFound("channel");
    },

    async listChannels() {
      const health = deps.channelHealth();
      return (await repos.channels.list()).map((c) => ({
        ...channelView(c),
        breaker: health.get(c.id) ?? "closed",
      }));
    },

    async banUser(firmId: number, userId: string, banned: boolean) {
      if (!(await repos.firms.get(firmId))) return notFound("firm");
      if (banned) await repos.firms.ban(firmId, userId, deps.now());
      else await repos.firms.unban(firmId, userId);
      return { ok: true as const, value: { firm_id: firmId, user_id: userId, banned } };
    },

    async listTransactions(filter: TransactionFilter) {
      return (await repos.transactions.list(filter)).map(operatorTransactionView);
    },

    async showTransaction(id: number) {
      const row = await repos.transactions.get(id);
      return row ? { ok: true as const, value: operatorTransactionView(row) } : notFound("transaction");
    },

    /** Approves or rejects a pending transaction; the decision and its callback are written together. */
    async decide(id: number, decision: Decision, actor: string) {
      const tx = await repos.transactions.get(id);
      if (!tx) return notFound("transaction");
      const planned = planDecision(tx, decision);
      if (!planned.ok) {
        return planned.refusal === "not_pending"
          ? notPending(tx.status)
          : bad("only a deposit can be approved with another amount");
      }
      const firm = await repos.firms.get(tx.firm_id);
      if (!firm) return notFound("firm");
      const { plan } = planned;
      const result = await repos.decisions.decide({
        transactionId: id,
        status: plan.status,
        amount: plan.amount,
        originalAmount: plan.originalAmount,
        decidedBy: actor,
        note: plan.note,
        now: deps.now(),
        callback: (decided) =>
          callbackDraft(decided, { callbackMiddleName: firm.callback_middle_name === 1 }),
      });
      if (!result.ok) {
        if (result.reason === "not_found") return notFound("transaction");
        const now = await repos.transactions.get(id);
        return notPending(now?.status ?? "decided");
      }
      deps.callbackQueued();
      return {
        ok: true as const,
        value: { transaction: operatorTransactionView(result.tx), callback_id: result.callbackId },
      };
    },

    /**
     * Everything operators may see about one transaction: its fields and routing attempts, the
     * decision history, and the callback with every attempt. The full national id only for admins.
     */
    async transactionDetail(id: number, opts: { fullNationalId: boolean }) {
      const row = await repos.transactions.get(id);
      if (!row) return notFound("transaction");
      const [history, callbacks] = await Promise.all([
        repos.operators.audit({ entityType: "transaction", entityId: String(id) }),
        repos.callbacks.list({ transactionId: id }),
      ]);
      const deliveries = await Promise.all(
        callbacks.map(async (c) => ({
          ...callbackView(c),
          attempts: (await repos.callbacks.attempts(c.id)).map(callbackAttemptView),
        })),
      );
      return {
        ok: true as const,
        value: {
          ...operatorTransactionView(row),
          ...(opts.fullNationalId && row.national_id_sealed !== null
            ? { national_id_full: box.open(row.national_id_sealed) }
            : {}),
          history: history.map((a) => ({
            actor: a.actor,
            action: a.action,
            before: a.before_json === null ? null : JSON.parse(a.before_json),
            after: a.after_json === null ? null : JSON.parse(a.after_json),
            at: new Date(a.at).toISOString(),
          })),
          callbacks: deliveries,
        },
      };
    },

    /** Today's figures (day in Türkiye) for the console's dashboard. */
    async dashboard() {
      const since = startOfIstanbulDay(deps.now());
      const [totals, times, callbacks, channels] = await Promise.all([
        repos.transactions.totalsSince(since),
        repos.transactions.decisionTimesSince(since),
        repos.callbacks.countByStatus(),
        repos.channels.list(),
      ]);
      const of = (type: string) => {
        const rows = totals.filter((t) => t.type === type);
        const sum = (status?: string) =>
          rows.filter((r) => status === undefined || r.status === status).reduce((a, r) => a + r.count, 0);
        const volume = (status?: string) =>
          rows.filter((r) => status === undefined || r.status === status).reduce((a, r) => a + r.volume, 0);
        const decided = sum("approved") + sum("rejected");
        return {
          count: sum(),
          volume: formatMinor(volume()),
          pending: sum("pending"),
          approved: sum("approved"),
          rejected: sum("rejected"),
          approved_volume: formatMinor(volume("approved")),
          approval_rate: decided === 0 ? null : Math.round((sum("approved") / decided) * 1000) / 1000,
        };
      };
      const sorted = [...times].sort((a, b) => a - b);
      const median = sorted.length === 0 ? null : (sorted[Math.floor((sorted.length - 1) / 2)] ?? null);
      const health = deps.channelHealth();
      return {
        since: new Date(since).toISOString(),
        deposits: of("deposit"),
        withdrawals: of("withdrawal"),
        median_seconds_to_decision: median === null ? null : Math.round(median / 1000),
        callbacks: {
          pending: callbacks.pending ?? 0,
          delivered: callbacks.delivered ?? 0,
          failed: callbacks.failed ?? 0,
        },
        channels: channels.map((c) => ({
          code: c.code,
          kind: c.kind,
          active: c.active === 1,
          breaker: health.get(c.id) ?? "closed",
        })),
      };
    },

    async audit(filter: { entityType?: string; entityId?: string; limit?: number }) {
      return (await repos.operators.audit(filter)).map((a) => ({
        id: a.id,
        actor: a.actor,
        action: a.action,
        entity_type: a.entity_type,
        entity_id: a.entity_id,
        before: a.before_json === null ? null : JSON.parse(a.before_json),
        after: a.after_json === null ? null : JSON.parse(a.after_json),
        at: new Date(a.at).toISOString(),
      }));
    },

    async listCallbacks(filter: {
      status?: "pending" | "delivered" | "failed";
      firmId?: number;
      limit?: number;
    }) {
      return (await repos.callbacks.list(filter)).map(callbackView);
    },

    async showCallback(id: number) {
      const row = await repos.callbacks.get(id);
      if (!row) return notFound("callback");
      // Attempts are read after the row; one recorded in between is left out, so the two agree.
      const attempts = (await repos.callbacks.attempts(id)).filter((a) => a.attempt <= row.attempts);
      return {
        ok: true as const,
        value: { ...callbackView(row), payload: row.payload, attempts: attempts.map(callbackAttemptView) },
      };
    },

    /** Sends a callback again with a fresh retry schedule (whatever its status). */
    async redeliver(id: number) {
      const row = await repos.callbacks.redeliver(id, deps.now());
      if (!row) return notFound("callback");
      deps.callbackQueued();
      return { ok: true as const, value: callbackView(row) };
    },

    /** After a merchant outage: every callback that failed at or after `since` goes out again. */
    async redeliverFailedSince(since: number) {
      const ids = await repos.callbacks.redeliverFailedSince(since, deps.now());
      if (ids.length > 0) deps.callbackQueued();
      return { ok: true as const, value: { redelivered: ids.length, callback_ids: ids } };
    },
  };
}

export type Backoffice = ReturnType<typeof createBackoffice>;
